package adapter

import (
	"context"
	"errors"
	"testing"
)

// With tracing off (no tracer) the span helpers on the event's path start
// nothing and allocate nothing.
func TestSpansOffAllocateNothing(t *testing.T) {
	p := &Pipeline{}
	r := &eventRun{p: p, result: &Result{}}
	o := &Outcome{Name: "b", err: errors.New("x")}
	err := errors.New("failed")
	allocs := testing.AllocsPerRun(100, func() {
		ctx, span := p.startSpan(context.Background(), SpanBundle)
		endBundle(span, o)
		endParam(span, "p", err)
		r.phase(ctx, SpanParams, func(context.Context) bool { return true })
		r.withTraceID(ctx)
	})
	if allocs != 0 {
		t.Errorf("tracing off: %v allocations per event path, want 0", allocs)
	}
}
