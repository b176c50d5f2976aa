package broker

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// Every event runs under a deadline (issue 28 #11): a run that a hostile
// server holds (here: one that waits for its context) ends when
// EventTimeout passes, and its message is redelivered, not acked and not
// lost, with an error that names the deadline; at the last delivery it is
// dead-lettered naming it.
func TestEventDeadline(t *testing.T) {
	for _, deliveries := range []int{1, 5} {
		var log syncBuffer
		o := DispatcherOptions{
			Process: func(ctx context.Context, ev adapter.Event) *adapter.Result {
				select {
				case <-ctx.Done():
					return result(ev, ctx.Err(), false)
				case <-time.After(20 * time.Second):
					return result(ev, nil, false)
				}
			},
			Decode:       testDecode,
			EventTimeout: 100 * time.Millisecond,
			Logger:       slog.New(slog.NewTextHandler(&log, nil)),
		}
		d, err := NewDispatcher(o)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { d.Run(ctx); close(done) }()
		m := newMsg("m", map[string]any{"id": "c1"}, deliveries)
		start := time.Now()
		d.Handle(m)
		got := m.wait(t)
		cancel()
		<-done
		want := map[int]string{1: "retry", 5: "dead-letter"}[deliveries]
		if got != want || time.Since(start) > 5*time.Second {
			t.Fatalf("delivery %d: settled %s after %v, want %s soon after the 100ms deadline", deliveries, got, time.Since(start), want)
		}
		if !strings.Contains(log.String(), "event_timeout") || (want == "dead-letter" && !strings.Contains(m.reason, "event_timeout")) {
			t.Errorf("no error names the deadline: reason %q, log:\n%s", m.reason, log.String())
		}
	}
}
