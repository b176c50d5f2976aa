package brokertest

import (
	"context"
	"testing"
	"time"

	"github.com/bundle-adapter/bundle-adapter/broker"
)

// Running is a consumer whose Consume runs, handing every message to a
// buffered channel, until Stop or the end of the test.
type Running struct {
	broker.Consumer
	msgs   chan broker.Message
	cancel context.CancelFunc
	done   chan struct{} // closed when Consume returned
	err    error         // what Consume returned
}

// Start runs c.Consume and waits until c is Ready. When t ends the
// consumer is stopped and Consume must have returned nil.
func Start(t *testing.T, c broker.Consumer) *Running {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	r := &Running{Consumer: c, msgs: make(chan broker.Message, 100), cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		r.err = c.Consume(ctx, func(m broker.Message) { r.msgs <- m })
	}()
	t.Cleanup(func() { r.Stop(t) })
	WaitFor(t, "consumer ready", r.Ready)
	return r
}

// Cancel ends Consume's context without waiting: the consumer drains.
func (r *Running) Cancel() { r.cancel() }

// Done is closed once Consume returned; Err then is what it returned.
func (r *Running) Done() <-chan struct{} { return r.done }

// Err is what Consume returned, once Done is closed.
func (r *Running) Err() error { return r.err }

// Stop cancels Consume and checks it returned nil within 10s.
func (r *Running) Stop(t *testing.T) {
	t.Helper()
	r.cancel()
	select {
	case <-r.done:
		if r.err != nil {
			t.Errorf("Consume returned %v", r.err)
		}
	case <-time.After(10 * time.Second):
		t.Error("Consume did not return after its context was done")
	}
}

// Receive waits up to 10s for the next message.
func (r *Running) Receive(t *testing.T) broker.Message {
	t.Helper()
	select {
	case m := <-r.msgs:
		return m
	case <-time.After(10 * time.Second):
		t.Fatal("no message within 10s")
		return nil
	}
}

// Messages is the channel messages arrive on, for scenarios that wait on
// several consumers at once.
func (r *Running) Messages() <-chan broker.Message { return r.msgs }

// ExpectNone checks that no message arrives within d.
func (r *Running) ExpectNone(t *testing.T, d time.Duration) {
	t.Helper()
	select {
	case m := <-r.msgs:
		t.Fatalf("unexpected message %s (deliveries %d)", m.ID(), m.Deliveries())
	case <-time.After(d):
	}
}

// WaitFor polls cond every 20ms until it holds, failing t after Timeout.
func WaitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(Timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
