package broker

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// handleAll hands msgs to d one after the other from a goroutine, as a
// consumer does, counting the calls that returned.
func handleAll(d *Dispatcher, msgs []*fakeMessage) (returned *atomic.Int64, done chan struct{}) {
	returned, done = new(atomic.Int64), make(chan struct{})
	go func() {
		defer close(done)
		for _, m := range msgs {
			d.Handle(m)
			returned.Add(1)
		}
	}()
	return returned, done
}

// blockedDispatcher has one worker held by its first event until the
// returned function (or the test's end) frees it.
func blockedDispatcher(t *testing.T, o DispatcherOptions) (*Dispatcher, func()) {
	t.Helper()
	release := make(chan struct{})
	o.Workers = 1
	o.Process = func(_ context.Context, ev adapter.Event) *adapter.Result {
		<-release
		return result(ev, nil, false)
	}
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	d, _ := startDispatcher(t, o)
	t.Cleanup(free) // runs before the dispatcher's cleanup, which waits for the worker
	return d, free
}

// While the workers are busy, the dispatcher holds at most
// DefaultMaxQueuedMessages messages: a consumer handing it more is held
// back (back-pressure on the broker's prefetch) instead of queueing
// without bound (issue 14, item 16). Once the workers move on, everything
// is processed.
func TestDispatcherBoundsQueuedMessages(t *testing.T) {
	const bound = 256 // DefaultMaxQueuedMessages
	d, release := blockedDispatcher(t, DispatcherOptions{})
	msgs := make([]*fakeMessage, bound+100)
	for i := range msgs {
		msgs[i] = newMsg(fmt.Sprintf("m%d", i), map[string]any{"id": fmt.Sprintf("c%d", i)}, 1)
	}
	returned, done := handleAll(d, msgs)
	waitFor(t, func() bool { return returned.Load() >= bound })
	time.Sleep(200 * time.Millisecond)
	if n := returned.Load(); n > bound {
		t.Fatalf("%d messages accepted while the workers were busy, want at most %d", n, bound)
	}
	release()
	<-done
	for _, m := range msgs {
		if got := m.wait(t); got != "ack" {
			t.Errorf("%s settled %s, want ack", m.id, got)
		}
	}
}

// The byte bound holds back a consumer the same way; a message bigger than
// the whole bound is still taken when nothing else is held.
func TestDispatcherBoundsQueuedBytes(t *testing.T) {
	d, release := blockedDispatcher(t, DispatcherOptions{MaxQueuedBytes: 10 << 10})
	pad := strings.Repeat("x", 4<<10)
	msgs := make([]*fakeMessage, 6)
	for i := range msgs {
		msgs[i] = newMsg(fmt.Sprintf("m%d", i), map[string]any{"id": fmt.Sprintf("c%d", i), "pad": pad}, 1)
	}
	returned, done := handleAll(d, msgs)
	waitFor(t, func() bool { return returned.Load() >= 2 })
	time.Sleep(200 * time.Millisecond)
	if n := returned.Load(); n != 2 {
		t.Fatalf("%d messages of 4 KiB accepted under a 10 KiB bound, want 2", n)
	}
	release()
	<-done
	for _, m := range msgs {
		if got := m.wait(t); got != "ack" {
			t.Errorf("%s settled %s, want ack", m.id, got)
		}
	}
}

// A consumer held back by the bound is let go at shutdown: its message is
// released for redelivery, not processed and not lost.
func TestShutdownReleasesHeldBackMessages(t *testing.T) {
	d, release := blockedDispatcher(t, DispatcherOptions{MaxQueuedMessages: 1})
	first := newMsg("first", map[string]any{"id": "a"}, 1)
	held := newMsg("held", map[string]any{"id": "b"}, 1)
	returned, done := handleAll(d, []*fakeMessage{first, held})
	waitFor(t, func() bool { return returned.Load() == 1 })
	shutdown := make(chan error, 1)
	go func() { shutdown <- d.Shutdown(context.Background()) }()
	<-done
	if got := held.wait(t); got != "release" {
		t.Errorf("held back message settled %s, want release", got)
	}
	release()
	if err := <-shutdown; err != nil {
		t.Fatal(err)
	}
	if got := first.wait(t); got != "ack" {
		t.Errorf("in-flight message settled %s, want ack", got)
	}
}
