package configfile

import (
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"gopkg.in/yaml.v3"
)

// NodeDecoder is implemented by config types whose YAML shape is not a plain
// struct (a param source may be a string or a mapping, for example).
type NodeDecoder interface {
	DecodeNode(d *Decoder, n *yaml.Node, path string)
}

// Decoder decodes a YAML node tree into config structs strictly: unknown and
// duplicate keys are errors, every error names its YAML path and line, and
// decoding goes on after an error so all problems are reported at once.
//
// Struct fields are matched by their yaml tag. A key written in camelCase
// (the older HyperFleet spelling, e.g. targetCluster) matches the snake_case
// tag (target_cluster). Fields tagged yaml:"-" are never decoded.
type Decoder struct {
	Errs *ErrorList
}

var (
	nodeDecoderType = reflect.TypeOf((*NodeDecoder)(nil)).Elem()
	DurationType    = reflect.TypeOf(Duration(0))
)

func (d *Decoder) Decode(n *yaml.Node, v reflect.Value, path string) {
	n = Resolve(n)
	if n == nil {
		return
	}
	if _, seen := d.Errs.Lines[path]; !seen {
		d.Errs.Lines[path] = n.Line
	}
	if v.CanAddr() && v.Addr().Type().Implements(nodeDecoderType) {
		v.Addr().Interface().(NodeDecoder).DecodeNode(d, n, path)
		return
	}
	if isNull(n) {
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		d.Decode(n, v.Elem(), path)
	case reflect.Struct:
		d.DecodeStruct(n, v, path)
	case reflect.Slice:
		d.decodeSlice(n, v, path)
	case reflect.Map:
		d.decodeMap(n, v, path)
	case reflect.Interface:
		d.DecodeAny(n, v, path)
	default:
		d.decodeScalar(n, v, path)
	}
}

func (d *Decoder) DecodeStruct(n *yaml.Node, v reflect.Value, path string) {
	if n.Kind != yaml.MappingNode {
		d.Errs.AddAt(path, n.Line, "must be a mapping, not %s", Describe(n))
		return
	}
	fields := StructFields(v.Type())
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		if k.Value == "<<" {
			d.decodeMerge(val, v, path)
			continue
		}
		name := k.Value
		idx, ok := fields[name]
		if !ok {
			idx, ok = fields[snakeCase(name)]
		}
		fp := JoinPath(path, name)
		if !ok {
			d.Errs.AddAt(fp, k.Line, "unknown field %q%s", name, Suggest(name, fields))
			continue
		}
		if seen[name] {
			d.Errs.AddAt(fp, k.Line, "duplicate key %q", name)
			continue
		}
		seen[name] = true
		d.Errs.Lines[fp] = k.Line
		d.Decode(val, v.FieldByIndex(idx), fp)
	}
}

// decodeMerge applies a YAML merge key (<<: *anchor) to a struct.
func (d *Decoder) decodeMerge(n *yaml.Node, v reflect.Value, path string) {
	n = Resolve(n)
	if n.Kind == yaml.SequenceNode {
		for _, c := range n.Content {
			d.decodeMerge(c, v, path)
		}
		return
	}
	d.DecodeStruct(n, v, path)
}

func (d *Decoder) decodeSlice(n *yaml.Node, v reflect.Value, path string) {
	if n.Kind != yaml.SequenceNode {
		d.Errs.AddAt(path, n.Line, "must be a list, not %s", Describe(n))
		return
	}
	out := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
	for i, c := range n.Content {
		d.Decode(c, out.Index(i), IndexPath(path, i))
	}
	v.Set(out)
}

func (d *Decoder) decodeMap(n *yaml.Node, v reflect.Value, path string) {
	if n.Kind != yaml.MappingNode {
		d.Errs.AddAt(path, n.Line, "must be a mapping, not %s", Describe(n))
		return
	}
	if v.Type().Key().Kind() != reflect.String {
		d.Errs.AddAt(path, n.Line, "internal: map keys must be strings")
		return
	}
	if v.IsNil() {
		v.Set(reflect.MakeMap(v.Type()))
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		fp := JoinPath(path, k.Value)
		if v.MapIndex(reflect.ValueOf(k.Value)).IsValid() {
			d.Errs.AddAt(fp, k.Line, "duplicate key %q", k.Value)
			continue
		}
		elem := reflect.New(v.Type().Elem()).Elem()
		d.Errs.Lines[fp] = k.Line
		d.Decode(val, elem, fp)
		v.SetMapIndex(reflect.ValueOf(k.Value), elem)
	}
}

// decodeAny decodes free-form YAML (manifests, payload builds) into plain
// map[string]any / []any / scalars, recording the line of every path.
func (d *Decoder) DecodeAny(n *yaml.Node, v reflect.Value, path string) {
	var out any
	if err := n.Decode(&out); err != nil {
		d.Errs.AddAt(path, n.Line, "%v", err)
		return
	}
	d.recordLines(n, path)
	if out != nil {
		v.Set(reflect.ValueOf(out))
	}
}

func (d *Decoder) recordLines(n *yaml.Node, path string) {
	n = Resolve(n)
	if n == nil {
		return
	}
	if _, ok := d.Errs.Lines[path]; !ok {
		d.Errs.Lines[path] = n.Line
	}
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			fp := JoinPath(path, n.Content[i].Value)
			d.Errs.Lines[fp] = n.Content[i].Line
			d.recordLines(n.Content[i+1], fp)
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			d.recordLines(c, IndexPath(path, i))
		}
	}
}

func (d *Decoder) decodeScalar(n *yaml.Node, v reflect.Value, path string) {
	if n.Kind != yaml.ScalarNode {
		d.Errs.AddAt(path, n.Line, "must be a single value, not %s", Describe(n))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(n.Value)
	case reflect.Bool:
		b, err := strconv.ParseBool(n.Value)
		if err != nil {
			d.Errs.AddAt(path, n.Line, "must be true or false, not %q", n.Value)
			return
		}
		v.SetBool(b)
	case reflect.Int, reflect.Int32, reflect.Int64:
		i, err := strconv.ParseInt(n.Value, 10, 64)
		if err != nil {
			d.Errs.AddAt(path, n.Line, "must be a whole number, not %q", n.Value)
			return
		}
		v.SetInt(i)
	case reflect.Float64:
		f, err := strconv.ParseFloat(n.Value, 64)
		if err != nil {
			d.Errs.AddAt(path, n.Line, "must be a number, not %q", n.Value)
			return
		}
		v.SetFloat(f)
	default:
		d.Errs.AddAt(path, n.Line, "internal: cannot decode into %s", v.Type())
	}
}

// Duration is a time.Duration written in YAML as a Go duration string
// ("5s", "10m") or as a whole number of seconds.
type Duration time.Duration

// D returns the value as a time.Duration.
func (x Duration) D() time.Duration { return time.Duration(x) }

func (x Duration) String() string { return time.Duration(x).String() }

// MarshalYAML writes the duration the way it is read ("1m30s").
func (x Duration) MarshalYAML() (any, error) { return x.String(), nil }

func (x *Duration) DecodeNode(d *Decoder, n *yaml.Node, path string) {
	if isNull(n) {
		return
	}
	if n.Kind != yaml.ScalarNode {
		d.Errs.AddAt(path, n.Line, "must be a duration such as 10s or 5m, not %s", Describe(n))
		return
	}
	dur, err := ParseDuration(n.Value)
	if err != nil {
		d.Errs.AddAt(path, n.Line, "%v", err)
		return
	}
	*x = Duration(dur)
}

func ParseDuration(s string) (time.Duration, error) {
	if secs, err := strconv.ParseInt(s, 10, 64); err == nil {
		return time.Duration(secs) * time.Second, nil
	}
	dur, err := time.ParseDuration(s)
	if days, ok := strings.CutSuffix(s, "d"); ok && err != nil {
		// Whole days, as Google Cloud writes durations ("7d").
		n, derr := strconv.ParseInt(days, 10, 64)
		if derr == nil && n >= 0 && n <= int64(math.MaxInt64/(24*time.Hour)) {
			dur, err = time.Duration(n)*24*time.Hour, nil
		}
	}
	if err != nil {
		return 0, Errorf("must be a duration such as 10s or 5m, not %q", s)
	}
	if dur < 0 {
		return 0, Errorf("must not be negative, got %s", s)
	}
	return dur, nil
}

func Resolve(n *yaml.Node) *yaml.Node {
	for n != nil && (n.Kind == yaml.DocumentNode || n.Kind == yaml.AliasNode) {
		if n.Kind == yaml.AliasNode {
			n = n.Alias
			continue
		}
		if len(n.Content) == 0 {
			return nil
		}
		n = n.Content[0]
	}
	return n
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

func Describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	default:
		return strconv.Quote(n.Value)
	}
}

var structFieldCache sync.Map // reflect.Type -> map[string][]int

// structFields maps yaml key -> field index path, following ",inline" fields.
func StructFields(t reflect.Type) map[string][]int {
	if m, ok := structFieldCache.Load(t); ok {
		return m.(map[string][]int)
	}
	m := map[string][]int{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("yaml")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if opts == "inline" {
			for k, idx := range StructFields(f.Type) {
				m[k] = append([]int{i}, idx...)
			}
			continue
		}
		if name == "" {
			name = snakeCase(f.Name)
		}
		m[name] = []int{i}
	}
	structFieldCache.Store(t, m)
	return m
}

// snakeCase turns "targetCluster" into "target_cluster"; snake_case input is
// returned unchanged.
func snakeCase(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			b.WriteRune(unicode.ToLower(r))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// destructiveKeys are never suggested for an unknown key: a typo (or a
// key this adapter does not know, such as another version's create gate)
// must not be steered into a rule that deletes bundles.
var DestructiveKeys = []string{"delete", "recreate", "recreate_on_change", "allow_destructive_recreate", "propagation_policy"}

// suggest names the closest known key when a key looks like a typo. It
// never suggests a destructive key (destructiveKeys).
func Suggest(name string, fields map[string][]int) string {
	best, bestDist := "", 3
	for k := range fields {
		if slices.Contains(DestructiveKeys, k) {
			continue
		}
		if dist := EditDistance(snakeCase(name), k); dist < bestDist || (dist == bestDist && k < best) {
			best, bestDist = k, dist
		}
	}
	if best == "" {
		return ""
	}
	return "; did you mean " + strconv.Quote(best) + "?"
}

func EditDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

func ReflectValue(p any) reflect.Value { return reflect.ValueOf(p).Elem() }
