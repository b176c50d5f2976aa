package task

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/bundle-adapter/bundle-adapter/internal/configfile"
	"github.com/bundle-adapter/bundle-adapter/tmpl"
	"gopkg.in/yaml.v3"
)

// Manifest is a ManifestWork template compiled at load.
//
// Exactly one of Tree and Whole is set. Tree is the fast path: the YAML is
// decoded once, here, and every string containing "{{" is replaced by a
// compiled *Template, so rendering an event only executes templates and
// copies the tree. In Tree form every templated value renders to a string,
// whether it was quoted in the YAML or not; a number or boolean computed by
// a template needs the Whole form.
//
// Whole is the slow path, used only for a ref file that is valid YAML only
// after rendering, because templating spans YAML structure (a {{ range }}
// producing list items, an unquoted {{ .replicas }}, an action in a key or a
// comment). Its rendered text is YAML-decoded on every event.
type Manifest struct {
	// Ref is the ref path as written, "" when the manifest is inline.
	Ref string
	// Tree is the compiled tree: map[string]any, []any and scalars (string,
	// bool, nil, int/uint kinds, float64, json.Number), with every string
	// containing "{{" replaced by a *Template named after its YAML path.
	// The root is a map[string]any. Unquoted YAML timestamps are strings in
	// RFC 3339 form ("2024-01-01" stays "2024-01-01").
	Tree any
	// Whole is the whole ref file as one template, set instead of Tree.
	Whole *tmpl.Template
}

// CompileManifest compiles an inline manifest already decoded from YAML
// (map[string]any, map[any]any, []any, scalars; a *yaml.Node is accepted
// too). path is the YAML path used in errors, e.g. "resources[0].manifest".
// A template in a mapping key is an error: inline manifests cannot use the
// Whole form.
func CompileManifest(path string, raw any) (*Manifest, error) {
	if n, ok := raw.(*yaml.Node); ok {
		var v any
		if err := n.Decode(&v); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		raw = v
	}
	c := manifestCompiler{}
	tree, err := c.compile(path, raw)
	if err != nil {
		return nil, err
	}
	if _, ok := tree.(map[string]any); !ok {
		return nil, fmt.Errorf("%s: a ManifestWork must be a mapping, not %s", path, manifestDescribe(raw))
	}
	return &Manifest{Tree: tree}, nil
}

// CompileManifestFile compiles a ref file's content. file names it in
// errors and becomes Ref. A file that is valid YAML with templates only
// inside string values compiles to a Tree; a file that is not valid YAML
// before rendering, or has template actions outside string values, compiles
// to Whole. A file without templates must be valid YAML; its errors carry
// yaml's line number.
func CompileManifestFile(file string, data []byte) (*Manifest, error) {
	raw, yamlErr := manifestDecodeYAML(data)
	if ye := (*configfile.YAMLError)(nil); errors.As(yamlErr, &ye) && ye.Bound {
		return nil, fmt.Errorf("%s: %w", file, yamlErr)
	}
	actions := bytes.Count(data, []byte("{{"))
	if yamlErr == nil && actions > 0 {
		inStrings, inKeys := manifestCountActions(raw)
		if inKeys || inStrings < actions {
			yamlErr = errors.New("templates outside string values")
		}
	}
	if yamlErr != nil {
		if actions == 0 {
			return nil, fmt.Errorf("%s: %w", file, yamlErr)
		}
		t, err := tmpl.Parse(file, string(data))
		if err != nil {
			return nil, err
		}
		return &Manifest{Ref: file, Whole: t}, nil
	}
	if raw == nil {
		return nil, fmt.Errorf("%s: empty manifest", file)
	}
	c := manifestCompiler{file: file, origins: manifestOrigins(file, data)}
	tree, err := c.compile("", raw)
	if err != nil {
		return nil, err
	}
	if _, ok := tree.(map[string]any); !ok {
		return nil, fmt.Errorf("%s: a ManifestWork must be a mapping, not %s", file, manifestDescribe(raw))
	}
	return &Manifest{Ref: file, Tree: tree}, nil
}

// Kinds returns the literal (not templated) "kind" values of
// spec.workload.manifests[], in order, for validation (for example a bundle
// holding a Namespace or CustomResourceDefinition). For a Whole manifest it
// is a best-effort scan of the template text.
func (m *Manifest) Kinds() []string {
	if m.Whole != nil {
		return manifestScanKinds(m.Whole.Source())
	}
	return manifestTreeKinds(m.Tree)
}

// manifestDecodeYAML decodes one YAML document; more than one is an error,
// and so are aliases that expand past MaxYAMLNodes or MaxYAMLDepth (checked
// before anything expands them).
func manifestDecodeYAML(data []byte) (any, error) {
	v, err := configfile.DecodeYAML(data)
	if ye := (*configfile.YAMLError)(nil); errors.As(err, &ye) && ye.Extra {
		return nil, errors.New("more than one YAML document; a manifest file holds one ManifestWork")
	}
	return v, err
}

// manifestCountActions counts "{{" in the string values of a decoded tree
// and reports whether any mapping key holds one.
func manifestCountActions(v any) (inStrings int, inKeys bool) {
	switch x := v.(type) {
	case string:
		return strings.Count(x, "{{"), false
	case map[string]any:
		for k, val := range x {
			if strings.Contains(k, "{{") {
				inKeys = true
			}
			n, keys := manifestCountActions(val)
			inStrings += n
			inKeys = inKeys || keys
		}
	case map[any]any:
		for k, val := range x {
			if s, ok := k.(string); ok && strings.Contains(s, "{{") {
				inKeys = true
			}
			n, keys := manifestCountActions(val)
			inStrings += n
			inKeys = inKeys || keys
		}
	case []any:
		for _, val := range x {
			n, keys := manifestCountActions(val)
			inStrings += n
			inKeys = inKeys || keys
		}
	}
	return inStrings, inKeys
}

// NormalizeRendered turns a rendered Whole manifest, as YAML decoded it,
// into the JSON-shaped values of a compiled Tree, by the walk that compiles
// a Tree (CompileManifestFile): a non-string mapping key becomes its text
// (two keys of one spelling are an error), an unquoted timestamp becomes
// text as in a Tree, and NaN or infinity is an error. Unlike a compiled
// Tree, a string stays a string even with "{{" in it, in a value or a key:
// it is output, not a template. name (the manifest's file) starts the YAML
// path in errors. raw's maps and slices may be reused in the result.
func NormalizeRendered(name string, raw any) (any, error) {
	return manifestCompiler{file: name, rendered: true}.compile("", raw)
}

// manifestCompiler turns a decoded YAML tree into a compiled Tree, or, with
// rendered, a rendered manifest into plain values (NormalizeRendered).
type manifestCompiler struct {
	file string // set for ref files; prefixes template names
	// origins places a ref file's templates in it, by template name
	// (manifestOrigins); nil for inline manifests.
	origins map[string]*tmpl.Origin
	// rendered: strings are output, never templates, and the maps and
	// slices of the input are filled in place (a rendered tree is decoded
	// for this one use).
	rendered bool
}

func (c manifestCompiler) errorf(path, format string, args ...any) error {
	return fmt.Errorf("%s: %s", c.name(path), fmt.Sprintf(format, args...))
}

func (c manifestCompiler) name(path string) string {
	switch {
	case c.file == "":
		return path
	case path == "":
		return c.file
	}
	return c.file + ":" + path
}

func (c manifestCompiler) compile(path string, v any) (any, error) {
	switch x := v.(type) {
	case nil, bool, json.Number,
		int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return x, nil
	case string:
		if c.rendered || !strings.Contains(x, "{{") {
			return x, nil
		}
		return tmpl.ParseAt(c.name(path), x, c.origins[c.name(path)])
	case float64:
		return c.float(path, x)
	case float32:
		return c.float(path, float64(x))
	case time.Time:
		return manifestTimeString(x), nil
	case map[string]any:
		out := x
		if !c.rendered {
			out = make(map[string]any, len(x))
		}
		for k, val := range x {
			if err := c.put(out, path, k, val); err != nil {
				return nil, err
			}
		}
		return out, nil
	case map[any]any:
		out := make(map[string]any, len(x))
		for k, val := range x {
			ks, err := c.key(path, k)
			if err != nil {
				return nil, err
			}
			if _, dup := out[ks]; dup {
				return nil, c.errorf(path, "duplicate key %q", ks)
			}
			if err := c.put(out, path, ks, val); err != nil {
				return nil, err
			}
		}
		return out, nil
	case []any:
		out := x
		if !c.rendered {
			out = make([]any, len(x))
		}
		for i, val := range x {
			cv, err := c.compile(manifestIndexPath(path, i), val)
			if err != nil {
				return nil, err
			}
			out[i] = cv
		}
		return out, nil
	}
	return c.compileReflect(path, v)
}

func (c manifestCompiler) put(out map[string]any, path, k string, val any) error {
	kp := manifestKeyPath(path, k)
	if !c.rendered && strings.Contains(k, "{{") {
		return c.errorf(kp, "a template in a mapping key is not supported here; template the value, or move the manifest to a ref file")
	}
	cv, err := c.compile(kp, val)
	if err != nil {
		return err
	}
	out[k] = cv
	return nil
}

// compileReflect handles typed maps and slices (map[string]string, []string)
// a caller may hand over.
func (c manifestCompiler) compileReflect(path string, v any) (any, error) {
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Map:
		if rv.Type().Key().Kind() != reflect.String {
			break
		}
		out := make(map[string]any, rv.Len())
		iter := rv.MapRange()
		for iter.Next() {
			if err := c.put(out, path, iter.Key().String(), iter.Value().Interface()); err != nil {
				return nil, err
			}
		}
		return out, nil
	case reflect.Slice, reflect.Array:
		out := make([]any, rv.Len())
		for i := range out {
			cv, err := c.compile(manifestIndexPath(path, i), rv.Index(i).Interface())
			if err != nil {
				return nil, err
			}
			out[i] = cv
		}
		return out, nil
	}
	return nil, c.errorf(path, "unsupported value of type %T", v)
}

func (c manifestCompiler) float(path string, f float64) (any, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, c.errorf(path, "%v is not a JSON number", f)
	}
	return f, nil
}

// key converts a non-string YAML key (1:, true:) to its text.
func (c manifestCompiler) key(path string, k any) (string, error) {
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
		return manifestTimeString(x), nil
	}
	return "", c.errorf(path, "mapping key %v (%s) must be a string", k, manifestDescribe(k))
}

// manifestTimeString writes an unquoted YAML timestamp back as text: a
// date stays a date, anything else becomes RFC 3339.
func manifestTimeString(t time.Time) string {
	if t.Location() == time.UTC && t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 && t.Nanosecond() == 0 {
		return t.Format(time.DateOnly)
	}
	return t.Format(time.RFC3339Nano)
}

func manifestDescribe(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case []any:
		return "a list"
	case string:
		return "a string"
	case map[string]any, map[any]any:
		return "a mapping"
	}
	return fmt.Sprintf("a %T", v)
}

var manifestIdentKey = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`)

// manifestKeyPath appends a key to a YAML path: a.b for plain keys,
// a["hyperfleet.io/generation"] for keys with dots, slashes or spaces.
func manifestKeyPath(parent, key string) string {
	if !manifestIdentKey.MatchString(key) {
		return parent + "[" + strconv.Quote(key) + "]"
	}
	if parent == "" {
		return key
	}
	return parent + "." + key
}

func manifestIndexPath(parent string, i int) string {
	return parent + "[" + strconv.Itoa(i) + "]"
}

// manifestTreeKinds reads the literal kinds of spec.workload.manifests[].
func manifestTreeKinds(tree any) []string {
	var kinds []string
	for _, item := range manifestItems(tree) {
		if m, ok := item.(map[string]any); ok {
			if kind, ok := m["kind"].(string); ok && kind != "" {
				kinds = append(kinds, kind)
			}
		}
	}
	return kinds
}

func manifestItems(tree any) []any {
	root, _ := tree.(map[string]any)
	spec, _ := root["spec"].(map[string]any)
	workload, _ := spec["workload"].(map[string]any)
	items, _ := workload["manifests"].([]any)
	return items
}

var (
	manifestActionLine = regexp.MustCompile(`(?m)^[ \t]*\{\{[^\n]*?\}\}[ \t]*$`)
	manifestAction     = regexp.MustCompile(`\{\{[^\n]*?\}\}`)
	manifestKindLine   = regexp.MustCompile(`^( *)(- +)?kind: *(["']?)([A-Za-z0-9.]+)["']? *(#.*)?$`)
	manifestsLine      = regexp.MustCompile(`^ *(- +)?manifests: *(#.*)?$`)
)

// manifestScanKinds guesses the literal kinds of a Whole template: first by
// dropping lines that are only actions, replacing the other actions with a
// placeholder and decoding the result; failing that, by scanning for the
// least indented "kind:" lines after "manifests:". Kinds inside a range
// appear once.
func manifestScanKinds(src string) []string {
	stripped := manifestActionLine.ReplaceAllString(src, "")
	stripped = manifestAction.ReplaceAllString(stripped, "x")
	if raw, err := manifestDecodeYAML([]byte(stripped)); err == nil {
		if kinds := manifestTreeKinds(raw); kinds != nil {
			return kinds
		}
	}
	var kinds []string
	var cols []int
	inManifests := false
	minCol := -1
	for _, line := range strings.Split(src, "\n") {
		line = strings.TrimRight(line, "\r")
		if manifestsLine.MatchString(line) {
			inManifests = true
			continue
		}
		if !inManifests {
			continue
		}
		m := manifestKindLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		col := len(m[1]) + len(m[2])
		kinds, cols = append(kinds, m[4]), append(cols, col)
		if minCol < 0 || col < minCol {
			minCol = col
		}
	}
	var out []string
	for i, k := range kinds {
		if cols[i] == minCol {
			out = append(out, k)
		}
	}
	return out
}
