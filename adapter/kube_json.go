package adapter

import (
	"encoding/json"
	"fmt"
	"math"
)

// jsonTree converts a rendered manifest tree to the value types of an
// unstructured object (map[string]any, []any, string, bool, int64,
// float64, nil): a rendered tree keeps YAML's int and json.Number, which
// unstructured objects refuse to copy.
func jsonTree(v any) (any, error) {
	switch x := v.(type) {
	case nil, string, bool, int64, float64:
		return x, nil
	case map[string]any:
		for k, val := range x {
			c, err := jsonTree(val)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			x[k] = c
		}
		return x, nil
	case []any:
		for i, val := range x {
			c, err := jsonTree(val)
			if err != nil {
				return nil, fmt.Errorf("[%d]: %w", i, err)
			}
			x[i] = c
		}
		return x, nil
	case int:
		return int64(x), nil
	case int8:
		return int64(x), nil
	case int16:
		return int64(x), nil
	case int32:
		return int64(x), nil
	case uint:
		return uintJSON(uint64(x))
	case uint8:
		return int64(x), nil
	case uint16:
		return int64(x), nil
	case uint32:
		return int64(x), nil
	case uint64:
		return uintJSON(x)
	case float32:
		return float64(x), nil
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i, nil
		}
		return x.Float64()
	}
	return nil, fmt.Errorf("value of type %T is not JSON", v)
}

func uintJSON(u uint64) (any, error) {
	if u > math.MaxInt64 {
		return float64(u), nil
	}
	return int64(u), nil
}
