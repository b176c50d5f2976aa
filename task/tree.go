package task

import (
	"context"
	"github.com/bundle-adapter/bundle-adapter/tmpl"
	"time"
)

// ExecuteTree renders a compiled manifest tree (Manifest.Tree): every
// *Template leaf is executed with data and now (within its budget and ctx),
// maps and lists are copied, other values are kept as they are.
//
// On failure it returns the error of the first failing template in key
// order (map keys sorted, lists in order), so one input always reports the
// same error: a status message does not change from event to event with
// Go's map order. Only a failing render pays for that order.
func ExecuteTree(ctx context.Context, v any, data map[string]any, now time.Time) (any, error) {
	out, err := executeTree(ctx, v, data, now)
	if err != nil {
		return nil, firstTreeError(ctx, v, data, now, err)
	}
	return out, nil
}

func executeTree(ctx context.Context, v any, data map[string]any, now time.Time) (any, error) {
	switch x := v.(type) {
	case *tmpl.Template:
		return x.ExecuteContext(ctx, data, now)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, val := range x {
			rv, err := executeTree(ctx, val, data, now)
			if err != nil {
				return nil, err
			}
			out[k] = rv
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, val := range x {
			rv, err := executeTree(ctx, val, data, now)
			if err != nil {
				return nil, err
			}
			out[i] = rv
		}
		return out, nil
	}
	return v, nil
}

// firstTreeError executes v's templates in key order until one fails and
// returns its error; err (the failure seen first) when none fails now, as
// a budget or a cancelled context may not fail twice alike.
func firstTreeError(ctx context.Context, v any, data map[string]any, now time.Time, err error) error {
	var first error
	tmpl.Walk(v, func(t *tmpl.Template) {
		if first == nil {
			_, first = t.ExecuteContext(ctx, data, now)
		}
	})
	if first == nil {
		return err
	}
	return first
}
