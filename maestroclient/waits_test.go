package maestroclient

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// Every wait of this package on a caller's context (a read slot, the shared
// work client, the write budget's window and its rate) ends the same way
// (waitEnded): a deadline is ErrUnavailable, so the event is redelivered as
// for a request that timed out; a cancellation is context.Canceled and never
// ErrUnavailable. Before, a deadline reached while waiting for a read slot
// came back as a bare context error, not retried and not ErrUnavailable
// (TestCallerDeadline failed on it under load), and a cancellation during a
// budget wait was reported as ErrUnavailable. A new wait goes in this table.
func TestEveryWaitEndsClassified(t *testing.T) {
	waits := map[string]func(ctx context.Context) error{
		"read slot": func(ctx context.Context) error {
			r := &restReader{base: "http://127.0.0.1:1", slots: make(chan struct{}, 1)}
			r.slots <- struct{}{} // held by another read
			_, err := r.get(ctx, "/x", 1)
			return err
		},
		"shared work client": func(ctx context.Context) error {
			c := testClient(1, time.Minute)
			c.sem = make(chan struct{}, 1)
			c.sem <- struct{}{} // held by another call
			return c.withConsumer(ctx, "c", "w", nil)
		},
		"write budget window": func(ctx context.Context) error {
			b := adaptiveBudget(newFakeClock(), 1)
			b.Subscribed()
			b.reserve("c1", "a", 0)
			b.consumers["c1"].rate = 100 // above the floor: the window of 1 is full
			return b.wait(ctx, "c1", "b")
		},
		"write budget rate": func(ctx context.Context) error {
			b := newBudget(WriteBudget{Mode: BudgetFixed, PerSecond: 1, Burst: 1, Ceiling: 400, Window: 50}, time.Now)
			// The next write waits about 1 s: refused at once past a
			// shorter deadline, waited for within a longer one.
			b.reserve("c1", "a", time.Hour)
			return b.wait(ctx, "c1", "b")
		},
	}
	for name, wait := range waits {
		t.Run(name+"/deadline", func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
			defer cancel()
			err := wait(ctx)
			if !errors.Is(err, adapter.ErrUnavailable) || errors.Is(err, context.Canceled) {
				t.Errorf("got %v, want ErrUnavailable", err)
			}
		})
		t.Run(name+"/cancel", func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			time.AfterFunc(50*time.Millisecond, cancel)
			err := wait(ctx)
			if !errors.Is(err, context.Canceled) || errors.Is(err, adapter.ErrUnavailable) {
				t.Errorf("got %v, want context.Canceled without ErrUnavailable", err)
			}
		})
	}
}
