package celenv

import (
	"fmt"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
)

// maxCELJSONDepth bounds how deep toJson walks a value.
const maxCELJSONDepth = 10000

// celJSONValue is v as the Go value encoding/json encodes as hyperfleet-
// adapter's toJson does: null is nil, numbers int64, uint64 and float64,
// bytes []byte (base64), a timestamp time.Time (RFC 3339), a duration
// time.Duration (nanoseconds), an optional its value (none: nil), a type
// its name, a map map[string]any (string keys, int and uint keys in
// decimal; any other key or two keys of one spelling are an error) and a
// list []any. The anchor encodes a CEL null as 0, and maps, lists and
// durations built in the expression as an error or as their Go internals;
// here they are encoded as the values they are.
func celJSONValue(v ref.Val, depth int) (any, error) {
	if depth > maxCELJSONDepth {
		return nil, fmt.Errorf("the value is nested more than %d levels deep", maxCELJSONDepth)
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
		return x.Time, nil
	case types.Duration:
		return x.Duration, nil
	case *types.Optional:
		if !x.HasValue() {
			return nil, nil
		}
		return celJSONValue(x.GetValue(), depth+1)
	case ref.Type:
		return x.TypeName(), nil
	case traits.Mapper:
		return celJSONMap(x, depth)
	case traits.Lister:
		return celJSONList(x, depth)
	}
	return nil, fmt.Errorf("a value of type %s cannot be encoded", v.Type().TypeName())
}

func celJSONList(l traits.Lister, depth int) (any, error) {
	out := []any{}
	for it := l.Iterator(); it.HasNext() == types.True; {
		e, err := celJSONValue(it.Next(), depth+1)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

func celJSONMap(m traits.Mapper, depth int) (any, error) {
	out := map[string]any{}
	for it := m.Iterator(); it.HasNext() == types.True; {
		k := it.Next()
		key, err := celJSONKey(k)
		if err != nil {
			return nil, err
		}
		if _, dup := out[key]; dup {
			return nil, fmt.Errorf("two map keys are written %q", key)
		}
		val, _ := m.Find(k)
		e, err := celJSONValue(val, depth+1)
		if err != nil {
			return nil, err
		}
		out[key] = e
	}
	return out, nil
}

// celJSONKey spells a map key as encoding/json spells the keys of a Go
// map: a string as it is, an int or uint in decimal.
func celJSONKey(k ref.Val) (string, error) {
	switch x := k.(type) {
	case types.String:
		return string(x), nil
	case types.Int:
		return fmt.Sprint(int64(x)), nil
	case types.Uint:
		return fmt.Sprint(uint64(x)), nil
	}
	return "", fmt.Errorf("a map key of type %s cannot be encoded", k.Type().TypeName())
}
