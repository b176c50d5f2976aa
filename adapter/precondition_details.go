package adapter

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/cel-go/common/types"

	"github.com/bundle-adapter/bundle-adapter/task"
)

// noDetails is the detail of a precondition not met that names no failed
// condition: an expression, as in hyperfleet-adapter.
const noDetails = "no specific details available"

// notMetDetails words why a precondition is not met as hyperfleet-adapter
// does (formatConditionDetails): each failed structured condition as
// "field operator value (actual: x)", with Go's %v of the configured value
// and of the field's value (nil when absent: <nil>), joined by "; ". An
// expression, or conditions of which none fails alone, give noDetails. A
// condition whose evaluation errors counts as failed.
func (r *eventRun) notMetDetails(ctx context.Context, pc *task.Precondition) string {
	var details []string
	for i, check := range pc.Checks {
		if val, err := r.evalCEL(ctx, check, r.activation); err == nil && val == types.True {
			continue
		}
		c := pc.Conditions[i]
		want := c.Value
		if c.Values != nil {
			want = c.Values
		}
		details = append(details, fmt.Sprintf("%s %s %v (actual: %v)", c.Field, c.Operator, want, lookupPath(r.vars, c.Field)))
	}
	if len(details) == 0 {
		return noDetails
	}
	return strings.Join(details, "; ")
}
