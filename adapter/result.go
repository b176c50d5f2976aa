package adapter

import (
	"errors"
	"fmt"
)

// Execution statuses, as CEL sees them in adapter.executionStatus.
const (
	ExecutionSuccess = "success"
	ExecutionFailed  = "failed"
)

// PhaseError locates the first failure of an event: its phase (params,
// preconditions, resources, post), step (param, precondition, bundle or
// action name) and message.
type PhaseError struct {
	Phase   string `json:"phase"`
	Step    string `json:"step"`
	Message string `json:"message"`
	err     error
}

func (e *PhaseError) Error() string {
	return fmt.Sprintf("%s %s: %s", e.Phase, e.Step, e.Message)
}

func (e *PhaseError) Unwrap() error { return e.err }

// Disposition is what the broker does with the message after Run.
type Disposition int

const (
	// Ack: the event is finished (success, skipped, or a pending deletion
	// that the next event continues).
	Ack Disposition = iota
	// Retry: something failed; redeliver with backoff, bounded by the
	// broker's max_deliveries, then dead-letter.
	Retry
	// DeadLetter: the event itself is unusable (it lacks a required field);
	// no redelivery can help.
	DeadLetter
)

func (d Disposition) String() string {
	return [...]string{"ack", "retry", "dead-letter"}[d]
}

// Result is how one event ended.
type Result struct {
	Event           Event
	ExecutionStatus string
	Skipped         bool
	SkipReason      string
	// Error is the first failure, nil on success. Errors lists all of them.
	Error    *PhaseError
	Errors   []*PhaseError
	Bundles  []Outcome
	Payloads map[string]any
	// InvalidEvent reports that the event itself is unusable (it lacks a
	// required field): redelivering it cannot help.
	InvalidEvent bool
	// MaestroRequests is how many Maestro calls the event made (a
	// GetBundles counts one), KubeRequests how many Kubernetes API calls.
	// View says whether its pre-discovery came from the view
	// (Options.View).
	MaestroRequests int
	KubeRequests    int
	View            ViewUse
	// NullLeaves counts, by payload name, the payload leaves without a
	// default whose expression failed and that were built as null, as
	// hyperfleet-adapter builds them; nil when there were none.
	NullLeaves map[string]int
	// Generation is what the stale guard compared (stale.go).
	Generation GenerationCheck
	// Trace is what the event computed, phase by phase; nil unless
	// Options.Trace is set.
	Trace *EventTrace
}

// Disposition classifies the result for the broker.
func (r *Result) Disposition() Disposition {
	switch {
	case r.Error == nil:
		return Ack
	case r.InvalidEvent:
		return DeadLetter
	default:
		return Retry
	}
}

// Err returns the first failure as an error, nil on success.
func (r *Result) Err() error {
	if r.Error == nil {
		return nil
	}
	return r.Error
}

func (r *Result) finish() {
	r.ExecutionStatus = ExecutionSuccess
	if len(r.Errors) > 0 {
		r.ExecutionStatus = ExecutionFailed
		r.Error = r.Errors[0]
	}
}

// Transient reports whether every failure may pass on its own.
func (r *Result) Transient() bool {
	for _, e := range r.Errors {
		if !isTransient(errors.Unwrap(e)) {
			return false
		}
	}
	return len(r.Errors) > 0
}
