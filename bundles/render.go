package bundles

import (
	"context"
	"errors"
	"fmt"
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
	out, err := task.NormalizeRendered(name, raw)
	if err != nil {
		return nil, err
	}
	root, ok := out.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: rendered manifest is %T, not a mapping", name, out)
	}
	return root, nil
}
