package adapter

import (
	"fmt"
	"time"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
)

// celToGo converts a CEL result into plain JSON-able Go values:
// map[string]any, []any, string, bool, int64, uint64, float64, nil.
func celToGo(v ref.Val) (any, error) {
	switch x := v.(type) {
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
	case types.Null:
		return nil, nil
	case types.Timestamp:
		return x.Time.UTC().Format(time.RFC3339Nano), nil
	case types.Duration:
		return x.Duration.String(), nil
	case *types.Optional:
		if !x.HasValue() {
			return nil, nil
		}
		return celToGo(x.GetValue())
	case *types.Err:
		return nil, x
	case traits.Mapper:
		return celMapToGo(x)
	case traits.Lister:
		return celListToGo(x)
	}
	return v.Value(), nil
}

func celMapToGo(m traits.Mapper) (any, error) {
	out := map[string]any{}
	it := m.Iterator()
	for it.HasNext() == types.True {
		k := it.Next()
		ks, ok := k.(types.String)
		if !ok {
			return nil, fmt.Errorf("map key %v is not a string", k)
		}
		v, err := celToGo(m.Get(k))
		if err != nil {
			return nil, err
		}
		out[string(ks)] = v
	}
	return out, nil
}

func celListToGo(l traits.Lister) (any, error) {
	n, _ := l.Size().(types.Int)
	out := make([]any, 0, int(n))
	it := l.Iterator()
	for it.HasNext() == types.True {
		v, err := celToGo(it.Next())
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}
