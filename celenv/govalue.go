package celenv

import (
	"fmt"
	"time"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
)

// maxGoValueDepth bounds how deep a CEL value is walked into Go values.
const maxGoValueDepth = 10000

// GoValue converts a CEL result into the plain Go values the pipeline
// binds, templates and posts: nil, bool, int64, uint64, float64, string,
// []byte, map[string]any (string keys only) and []any. A timestamp becomes
// its RFC 3339 text in UTC and a duration its Go text ("1h0m0s"), an
// optional its value (none: nil), a CEL error the error; any other value
// as cel-go's Value gives it (a type: its name). A value nested more than
// 10,000 levels deep is an error.
//
// toJson walks values the same way with another encoding of a few leaves
// (celJSONValue); TestGoValueEncodings shows where the two differ and why.
func GoValue(v ref.Val) (any, error) {
	return goValue{}.of(v, 0)
}

// celJSONValue is v as the Go value encoding/json encodes as hyperfleet-
// adapter's toJson does: null is nil, numbers int64, uint64 and float64,
// bytes []byte (base64), a timestamp time.Time (RFC 3339), a duration
// time.Duration (nanoseconds), an optional its value (none: nil), a type
// its name, a map map[string]any (string keys, int and uint keys in
// decimal; any other key or two keys of one spelling are an error) and a
// list []any. The anchor encodes a CEL null as 0, and maps, lists and
// durations built in the expression as an error or as their Go internals;
// here they are encoded as the values they are. Where it differs from
// GoValue: TestGoValueEncodings.
func celJSONValue(v ref.Val) (any, error) {
	return goValue{json: true}.of(v, 0)
}

// goValue is the one walk of GoValue and celJSONValue; json picks toJson's
// encoding of the leaves where the two differ.
type goValue struct{ json bool }

func (g goValue) of(v ref.Val, depth int) (any, error) {
	if depth > maxGoValueDepth {
		return nil, fmt.Errorf("the value is nested more than %d levels deep", maxGoValueDepth)
	}
	switch x := v.(type) {
	case types.Null:
		return nil, nil
	case types.Bool:
		return bool(x), nil
	case types.Int:
		return int64(x), nil
	case types.Uint:
		return uint64(x), nil
	case types.Double:
		return float64(x), nil
	case types.String:
		return string(x), nil
	case types.Bytes:
		return []byte(x), nil
	case types.Timestamp:
		if g.json {
			return x.Time, nil
		}
		return x.Time.UTC().Format(time.RFC3339Nano), nil
	case types.Duration:
		if g.json {
			return x.Duration, nil
		}
		return x.Duration.String(), nil
	case *types.Optional:
		if !x.HasValue() {
			return nil, nil
		}
		return g.of(x.GetValue(), depth+1)
	case *types.Err:
		if !g.json {
			return nil, x
		}
	case ref.Type:
		if g.json {
			return x.TypeName(), nil
		}
	case traits.Mapper:
		return g.mapOf(x, depth)
	case traits.Lister:
		return g.listOf(x, depth)
	}
	if g.json {
		return nil, fmt.Errorf("a value of type %s cannot be encoded", v.Type().TypeName())
	}
	return v.Value(), nil
}

func (g goValue) listOf(l traits.Lister, depth int) (any, error) {
	n, _ := l.Size().(types.Int)
	out := make([]any, 0, int(n))
	for it := l.Iterator(); it.HasNext() == types.True; {
		e, err := g.of(it.Next(), depth+1)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

func (g goValue) mapOf(m traits.Mapper, depth int) (any, error) {
	out := map[string]any{}
	for it := m.Iterator(); it.HasNext() == types.True; {
		k := it.Next()
		key, err := g.key(k)
		if err != nil {
			return nil, err
		}
		if _, dup := out[key]; dup {
			return nil, fmt.Errorf("two map keys are written %q", key)
		}
		val, _ := m.Find(k)
		e, err := g.of(val, depth+1)
		if err != nil {
			return nil, err
		}
		out[key] = e
	}
	return out, nil
}

// key spells a map key: a string as it is; for toJson, as encoding/json
// spells the keys of a Go map, an int or uint in decimal too.
func (g goValue) key(k ref.Val) (string, error) {
	switch x := k.(type) {
	case types.String:
		return string(x), nil
	case types.Int:
		if g.json {
			return fmt.Sprint(int64(x)), nil
		}
	case types.Uint:
		if g.json {
			return fmt.Sprint(uint64(x)), nil
		}
	}
	if g.json {
		return "", fmt.Errorf("a map key of type %s cannot be encoded", k.Type().TypeName())
	}
	return "", fmt.Errorf("map key %v is not a string", k)
}
