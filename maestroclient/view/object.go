package view

import (
	"encoding/json"
	"slices"
	"strconv"
	"unicode/utf8"

	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// decodeObject decodes a JSON object into map[string]any exactly as
// apimachinery's util/json.Unmarshal does (whole numbers without a '.'
// that fit int64 as int64, other numbers float64, strings as encoding/json
// unquotes them), in one pass without encoding/json's reflection and
// validation pre-scan. It handles what pack's json.Marshal writes; anything
// else it does not accept as written (a string with escapes or invalid
// UTF-8 is unquoted by encoding/json itself), and a document it cannot
// parse at all is decoded by util/json, so results and errors are util/json's.
func decodeObject(raw []byte) (map[string]any, error) {
	d := objectDecoder{data: raw, str: string(raw)}
	d.space()
	obj, ok := d.object()
	if ok {
		d.space()
		ok = d.off == len(d.data)
	}
	if !ok {
		var m map[string]any
		if err := utiljson.Unmarshal(raw, &m); err != nil {
			return nil, err
		}
		return m, nil
	}
	return obj, nil
}

type objectDecoder struct {
	data []byte
	// str is data as one string: a string written as is (most of them)
	// is a substring of it, not an allocation of its own. The object's
	// strings thus share one copy of the document, which lives as long as
	// any of them (an event's objects and what it builds from them).
	str   string
	off   int
	depth int
}

// maxDepth is below encoding/json's nesting limit (10,000): deeper
// documents are left to util/json, which refuses them.
const maxDepth = 1000

func (d *objectDecoder) space() {
	for d.off < len(d.data) {
		switch d.data[d.off] {
		case ' ', '\t', '\n', '\r':
			d.off++
		default:
			return
		}
	}
}

// object decodes an object at d.off; false means: not parsed here.
func (d *objectDecoder) object() (map[string]any, bool) {
	if d.off >= len(d.data) || d.data[d.off] != '{' || d.depth >= maxDepth {
		return nil, false
	}
	d.off++
	d.depth++
	defer func() { d.depth-- }()
	m := map[string]any{}
	d.space()
	if d.off < len(d.data) && d.data[d.off] == '}' {
		d.off++
		return m, true
	}
	for {
		d.space()
		k, ok := d.key()
		if !ok {
			return nil, false
		}
		d.space()
		if d.off >= len(d.data) || d.data[d.off] != ':' {
			return nil, false
		}
		d.off++
		d.space()
		v, ok := d.value()
		if !ok {
			return nil, false
		}
		m[k] = v
		d.space()
		if d.off >= len(d.data) {
			return nil, false
		}
		switch d.data[d.off] {
		case ',':
			d.off++
		case '}':
			d.off++
			return m, true
		default:
			return nil, false
		}
	}
}

func (d *objectDecoder) array() ([]any, bool) {
	if d.depth >= maxDepth {
		return nil, false
	}
	d.off++ // '['
	d.depth++
	defer func() { d.depth-- }()
	out := []any{}
	d.space()
	if d.off < len(d.data) && d.data[d.off] == ']' {
		d.off++
		return out, true
	}
	for {
		d.space()
		v, ok := d.value()
		if !ok {
			return nil, false
		}
		out = append(out, v)
		d.space()
		if d.off >= len(d.data) {
			return nil, false
		}
		switch d.data[d.off] {
		case ',':
			d.off++
		case ']':
			d.off++
			return out, true
		default:
			return nil, false
		}
	}
}

func (d *objectDecoder) value() (any, bool) {
	if d.off >= len(d.data) {
		return nil, false
	}
	switch c := d.data[d.off]; {
	case c == '{':
		return d.object()
	case c == '[':
		return d.array()
	case c == '"':
		body, plain, ok := d.quoted()
		if !ok {
			return nil, false
		}
		if plain {
			return d.sub(body), true
		}
		return d.unquote(body)
	case c == 't':
		return true, d.literal("true")
	case c == 'f':
		return false, d.literal("false")
	case c == 'n':
		return nil, d.literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		return d.number()
	}
	return nil, false
}

func (d *objectDecoder) literal(lit string) bool {
	if len(d.data)-d.off < len(lit) || string(d.data[d.off:d.off+len(lit)]) != lit {
		return false
	}
	d.off += len(lit)
	return true
}

// key is an object key, the same string for the keys every bundle repeats.
func (d *objectDecoder) key() (string, bool) {
	body, plain, ok := d.quoted()
	if !ok {
		return "", false
	}
	if !plain {
		return d.unquote(body)
	}
	if k, common := commonKeys[string(body)]; common {
		return k, true
	}
	return d.sub(body), true
}

// sub is body, the string just quoted (it ends before d.off's closing
// quote), as a substring of str.
func (d *objectDecoder) sub(body []byte) string {
	start := d.off - 1 - len(body)
	return d.str[start : start+len(body)]
}

// quoted is the body of the string at d.off, and whether it is plain
// (printable ASCII without escapes: the string is its body).
func (d *objectDecoder) quoted() (body []byte, plain, ok bool) {
	if d.off >= len(d.data) || d.data[d.off] != '"' {
		return nil, false, false
	}
	start := d.off
	plain = true
	i := d.off + 1
	for ; i < len(d.data); i++ {
		c := d.data[i]
		if c == '"' {
			break
		}
		if c < 0x20 {
			return nil, false, false
		}
		if c == '\\' {
			plain = false
			i++ // the escaped byte; encoding/json validates the escape
			continue
		}
		if c >= utf8.RuneSelf {
			plain = false
		}
	}
	if i >= len(d.data) {
		return nil, false, false
	}
	d.off = i + 1
	return d.data[start+1 : i], plain, true
}

// unquote is the string whose body (not plain) ends just before d.off:
// valid UTF-8 without escapes as it is, else as encoding/json unquotes it.
func (d *objectDecoder) unquote(body []byte) (string, bool) {
	if utf8.Valid(body) && !slices.Contains(body, '\\') {
		return d.sub(body), true
	}
	var s string
	if err := json.Unmarshal(d.data[d.off-len(body)-2:d.off], &s); err != nil {
		return "", false
	}
	return s, true
}

// number decodes a JSON number (strict grammar) as util/json does: int64
// when it has no '.' and ParseInt takes it, else float64.
func (d *objectDecoder) number() (any, bool) {
	start := d.off
	i := d.off
	if d.data[i] == '-' {
		i++
	}
	switch {
	case i < len(d.data) && d.data[i] == '0':
		i++
	case i < len(d.data) && d.data[i] >= '1' && d.data[i] <= '9':
		for i < len(d.data) && d.data[i] >= '0' && d.data[i] <= '9' {
			i++
		}
	default:
		return nil, false
	}
	dot := false
	if i < len(d.data) && d.data[i] == '.' {
		dot = true
		i++
		n := i
		for i < len(d.data) && d.data[i] >= '0' && d.data[i] <= '9' {
			i++
		}
		if i == n {
			return nil, false
		}
	}
	if i < len(d.data) && (d.data[i] == 'e' || d.data[i] == 'E') {
		i++
		if i < len(d.data) && (d.data[i] == '+' || d.data[i] == '-') {
			i++
		}
		n := i
		for i < len(d.data) && d.data[i] >= '0' && d.data[i] <= '9' {
			i++
		}
		if i == n {
			return nil, false
		}
	}
	d.off = i
	s := string(d.data[start:i])
	if !dot {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return n, true
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return nil, false
	}
	return f, true
}

// commonKeys are the keys of a ManifestWork and its status that every
// bundle repeats: decoded once, not allocated per bundle.
var commonKeys = func() map[string]string {
	m := map[string]string{}
	for _, k := range []string{
		"apiVersion", "kind", "metadata", "name", "namespace", "uid", "resourceVersion", "generation",
		"creationTimestamp", "deletionTimestamp", "labels", "annotations", "finalizers", "managedFields",
		"spec", "workload", "manifests", "deleteOption", "propagationPolicy", "manifestConfigs",
		"resourceIdentifier", "group", "resource", "feedbackRules", "type", "jsonPaths", "path",
		"updateStrategy", "executor", "status", "conditions", "resourceStatus", "ordinal",
		"statusFeedback", "values", "fieldValue", "integer", "string", "boolean", "jsonRaw",
		"lastTransitionTime", "observedGeneration", "reason", "message", "data", "template",
		"containers", "image", "command", "args", "env", "value", "restartPolicy", "backoffLimit",
	} {
		m[k] = k
	}
	return m
}()
