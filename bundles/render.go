package bundles

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/bundle-adapter/bundle-adapter/internal/configfile"
	"github.com/bundle-adapter/bundle-adapter/task"
)

// Render executes the manifest with data (the event's params) and returns a
// fresh ManifestWork tree: it never shares a map or slice with the compiled
// tree, so callers may modify the result (Stamp does). now is what the
// template function now returns. An error names the YAML path (or, for a
// Whole manifest, the file) of the failing template, and for a missing
// param the param.
//
// A Tree manifest costs one map or slice per node plus the template
// outputs. A Whole manifest is rendered as text and YAML-decoded: the
// documented slow path.
func Render(m *task.Manifest, data map[string]any, now time.Time) (map[string]any, error) {
	return RenderContext(context.Background(), m, data, now)
}

// RenderContext is Render stopped when ctx is done: every template
// execution checks ctx at its steps (see tmpl.Template.ExecuteContext),
// so a caller that gives up gets its goroutine back at once.
func RenderContext(ctx context.Context, m *task.Manifest, data map[string]any, now time.Time) (map[string]any, error) {
	switch {
	case m == nil:
		return nil, errors.New("render: no manifest")
	case m.Whole != nil:
		return renderWhole(ctx, m, data, now)
	}
	out, err := task.ExecuteTree(ctx, m.Tree, data, now)
	if err != nil {
		return nil, err
	}
	root, ok := out.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("render: manifest is %T, not a mapping", out)
	}
	return root, nil
}

// renderWhole renders a Whole manifest as text and decodes it as YAML.
func renderWhole(ctx context.Context, m *task.Manifest, data map[string]any, now time.Time) (map[string]any, error) {
	name := m.Ref
	if name == "" {
		name = "manifest"
	}
	text, err := m.Whole.ExecuteContext(ctx, data, now)
	if err != nil {
		return nil, err
	}
	// The same bounded decoder as config files: one document, aliases and
	// merge keys expanded within config.MaxYAMLNodes and MaxYAMLDepth.
	raw, err := configfile.DecodeYAML([]byte(text))
	if err != nil {
		return nil, fmt.Errorf("%s: rendered manifest is not valid YAML: %w", name, err)
	}
	out, err := renderNormalize(name, raw)
	if err != nil {
		return nil, err
	}
	root, ok := out.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: rendered manifest is %T, not a mapping", name, out)
	}
	return root, nil
}

// renderNormalize turns yaml.v3 output into JSON-shaped values, the same way
// config compiles a Tree: keys become strings, timestamps become text, and
// NaN or infinity is an error.
func renderNormalize(path string, v any) (any, error) {
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			nv, err := renderNormalize(path+"."+k, val)
			if err != nil {
				return nil, err
			}
			x[k] = nv
		}
		return x, nil
	case map[any]any:
		out := make(map[string]any, len(x))
		for k, val := range x {
			ks, err := renderKey(path, k)
			if err != nil {
				return nil, err
			}
			nv, err := renderNormalize(path+"."+ks, val)
			if err != nil {
				return nil, err
			}
			out[ks] = nv
		}
		return out, nil
	case []any:
		for i, val := range x {
			nv, err := renderNormalize(path+"["+strconv.Itoa(i)+"]", val)
			if err != nil {
				return nil, err
			}
			x[i] = nv
		}
		return x, nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("%s: %v is not a JSON number", path, x)
		}
	case time.Time:
		return renderTime(x), nil
	}
	return v, nil
}

func renderKey(path string, k any) (string, error) {
	switch x := k.(type) {
	case string:
		return x, nil
	case bool:
		return strconv.FormatBool(x), nil
	case int:
		return strconv.Itoa(x), nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case uint64:
		return strconv.FormatUint(x, 10), nil
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64), nil
	case time.Time:
		return renderTime(x), nil
	}
	return "", fmt.Errorf("%s: mapping key %v must be a string", path, k)
}

// renderTime matches config's handling of unquoted YAML timestamps.
func renderTime(t time.Time) string {
	if t.Location() == time.UTC && t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 && t.Nanosecond() == 0 {
		return t.Format(time.DateOnly)
	}
	return t.Format(time.RFC3339Nano)
}
