package configtest

import (
	"encoding/json"
	"fmt"
	"time"
)

// toJSON encodes a value decoded from YAML as JSON. Mappings whose keys are
// not all strings are refused (JSON has none); a YAML timestamp becomes
// its RFC 3339 text.
func toJSON(v any) ([]byte, error) {
	c, err := jsonable(v)
	if err != nil {
		return nil, err
	}
	return json.Marshal(c)
}

func jsonable(v any) (any, error) {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			c, err := jsonable(e)
			if err != nil {
				return nil, err
			}
			out[k] = c
		}
		return out, nil
	case map[any]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			ks, ok := k.(string)
			if !ok {
				return nil, fmt.Errorf("mapping key %v is not a string", k)
			}
			c, err := jsonable(e)
			if err != nil {
				return nil, err
			}
			out[ks] = c
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			c, err := jsonable(e)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	case time.Time:
		return x.Format(time.RFC3339Nano), nil
	}
	return v, nil
}

// normalize turns any value into JSON's types (map[string]any, []any,
// string, float64, bool, nil), so expected and actual values compare alike.
func normalize(v any) (any, error) {
	data, err := toJSON(v)
	if err != nil {
		return nil, err
	}
	var out any
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, err
	}
	return out, nil
}
