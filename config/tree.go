package config

import (
	"context"
	"time"
)

// ExecuteTree renders a compiled manifest tree (Manifest.Tree): every
// *Template leaf is executed with data and now (within its budget and ctx),
// maps and lists are copied, other values are kept as they are. The first
// template error is returned.
func ExecuteTree(ctx context.Context, v any, data map[string]any, now time.Time) (any, error) {
	switch x := v.(type) {
	case *Template:
		return x.ExecuteContext(ctx, data, now)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, val := range x {
			rv, err := ExecuteTree(ctx, val, data, now)
			if err != nil {
				return nil, err
			}
			out[k] = rv
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, val := range x {
			rv, err := ExecuteTree(ctx, val, data, now)
			if err != nil {
				return nil, err
			}
			out[i] = rv
		}
		return out, nil
	}
	return v, nil
}
