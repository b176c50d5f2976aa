package maestroclient

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

func testClient(attempts int, timeout time.Duration) *Client {
	opts := Options{Timeout: timeout, Retry: RetryOptions{Attempts: attempts, InitialBackoff: time.Millisecond,
		MaxBackoff: 4 * time.Millisecond}, Logger: slog.New(slog.DiscardHandler)}.withDefaults()
	return &Client{opts: opts, log: opts.Logger, libLog: opts.Logger.Handler(), writes: newBudget(opts.ConsumerWrites, time.Now)}
}

func TestCallRetries(t *testing.T) {
	unavailable := fmt.Errorf("%w: down", adapter.ErrUnavailable)
	tests := []struct {
		name      string
		errs      []error // returned by successive tries; the last one repeats
		wantTries int
		want      error
	}{
		{"success", []error{nil}, 1, nil},
		{"recovers", []error{unavailable, unavailable, nil}, 3, nil},
		{"gives up", []error{unavailable}, 4, adapter.ErrUnavailable},
		{"not found is final", []error{fmt.Errorf("%w: x", adapter.ErrNotFound)}, 1, adapter.ErrNotFound},
		{"conflict is not retried", []error{errVersionConflict}, 1, adapter.ErrUnavailable},
		{"unknown is final", []error{errors.New("odd")}, 1, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tries := 0
			err := testClient(4, time.Second).call(t.Context(), "get", "c", "b", func(context.Context) error {
				e := tt.errs[min(tries, len(tt.errs)-1)]
				tries++
				return e
			})
			if tries != tt.wantTries {
				t.Errorf("tries = %d, want %d", tries, tt.wantTries)
			}
			if tt.want != nil && !errors.Is(err, tt.want) {
				t.Errorf("got %v, want %v", err, tt.want)
			}
			if err != nil && !strings.HasPrefix(err.Error(), "maestro get c/b: ") {
				t.Errorf("error lacks context: %v", err)
			}
		})
	}
}

func TestCallTimeout(t *testing.T) {
	start := time.Now()
	err := testClient(1000, 50*time.Millisecond).call(t.Context(), "get", "c", "b", func(ctx context.Context) error {
		<-ctx.Done()
		return classify(ctx.Err())
	})
	if !errors.Is(err, adapter.ErrUnavailable) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("got %v", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("timeout not enforced: %s", d)
	}
}

func TestWithConsumerHonoursContext(t *testing.T) {
	c := testClient(1, time.Second)
	c.sem = make(chan struct{}, 1)
	c.sem <- struct{}{} // held by another call
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
	defer cancel()
	if err := c.withConsumer(ctx, "c", "w", nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("got %v, want the context's error while waiting for the shared client", err)
	}
}
