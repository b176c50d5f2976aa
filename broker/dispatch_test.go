package broker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// fakeMessage records how it was settled.
type fakeMessage struct {
	id         string
	body       []byte
	deliveries int

	mu      sync.Mutex
	settled string
	delay   time.Duration
	reason  string
	done    chan struct{}
}

func newMsg(id string, data map[string]any, deliveries int) *fakeMessage {
	b, _ := json.Marshal(data)
	return &fakeMessage{id: id, body: b, deliveries: deliveries, done: make(chan struct{})}
}

func (m *fakeMessage) ID() string                    { return m.id }
func (m *fakeMessage) Body() []byte                  { return m.body }
func (m *fakeMessage) Attributes() map[string]string { return nil }
func (m *fakeMessage) Deliveries() int               { return m.deliveries }
func (m *fakeMessage) set(how string, delay time.Duration, reason string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.settled != "" {
		panic(fmt.Sprintf("message %s settled twice: %s then %s", m.id, m.settled, how))
	}
	m.settled, m.delay, m.reason = how, delay, reason
	close(m.done)
	return nil
}
func (m *fakeMessage) Ack(context.Context) error { return m.set("ack", 0, "") }
func (m *fakeMessage) Retry(_ context.Context, d time.Duration) error {
	return m.set("retry", d, "")
}
func (m *fakeMessage) Release(context.Context) error { return m.set("release", 0, "") }
func (m *fakeMessage) DeadLetter(_ context.Context, reason string) error {
	return m.set("dead-letter", 0, reason)
}

func (m *fakeMessage) wait(t *testing.T) string {
	t.Helper()
	select {
	case <-m.done:
	case <-time.After(10 * time.Second):
		t.Fatalf("message %s never settled", m.id)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.settled
}

// testDecode decodes the fake body: JSON data, or an error for "bad".
func testDecode(m Message) (adapter.Event, error) {
	var data map[string]any
	if err := json.Unmarshal(m.Body(), &data); err != nil || data["bad"] == true {
		return adapter.Event{}, &adapter.InvalidEventError{EventID: m.ID(), Reason: "not a CloudEvent"}
	}
	if g, ok := data["generation"].(float64); ok {
		data["generation"] = int64(g)
	}
	return adapter.Event{ID: m.ID(), Data: data}, nil
}

// result is what the pipeline answers for ev: err its first failure, if
// any (invalid: the event's own fault). As the pipeline does when the API
// holds the event's generation (adapter/stale.go), an event with a
// generation reports it checked (current).
func result(ev adapter.Event, err error, invalid bool) *adapter.Result {
	res := &adapter.Result{Event: ev, ExecutionStatus: adapter.ExecutionSuccess}
	if g, ok := ev.Data["generation"].(int64); ok {
		res.Generation = adapter.GenerationCheck{Event: g, API: g, APIFrom: "cluster", Verdict: adapter.GenerationCurrent}
	}
	if err != nil {
		res.ExecutionStatus = adapter.ExecutionFailed
		res.Error = &adapter.PhaseError{Phase: "resources", Message: err.Error()}
		res.Errors = []*adapter.PhaseError{res.Error}
		if invalid {
			res.Error.Phase = "params"
			res.InvalidEvent = true
		}
	}
	return res
}

func startDispatcher(t *testing.T, o DispatcherOptions) (*Dispatcher, context.CancelFunc) {
	t.Helper()
	o.Decode = testDecode
	o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	d, err := NewDispatcher(o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { d.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return d, cancel
}

func TestDeliveryContract(t *testing.T) {
	boom := errors.New("maestro unavailable")
	tests := []struct {
		name       string
		data       map[string]any
		deliveries int
		process    func(adapter.Event) *adapter.Result
		settled    string
		delay      time.Duration
		reason     string
	}{
		{"success is acked", map[string]any{"id": "c1"}, 1, func(ev adapter.Event) *adapter.Result { return result(ev, nil, false) }, "ack", 0, ""},
		{"failure is redelivered with backoff", map[string]any{"id": "c1"}, 3, func(ev adapter.Event) *adapter.Result { return result(ev, boom, false) }, "retry", 4 * time.Second, ""},
		{"backoff is capped", map[string]any{"id": "c1"}, 9, func(ev adapter.Event) *adapter.Result { return result(ev, boom, false) }, "retry", 10 * time.Second, ""},
		{"failure at max deliveries is dead-lettered", map[string]any{"id": "c1"}, 10, func(ev adapter.Event) *adapter.Result { return result(ev, boom, false) }, "dead-letter", 0, "failed 10 deliveries, last error: resources : maestro unavailable"},
		{"malformed is dead-lettered at once", map[string]any{"bad": true}, 1, nil, "dead-letter", 0, "malformed: invalid event m: not a CloudEvent"},
		{"invalid event is dead-lettered at once", map[string]any{"id": "c1"}, 1, func(ev adapter.Event) *adapter.Result { return result(ev, errors.New("no generation"), true) }, "dead-letter", 0, "invalid event: params : no generation"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, _ := startDispatcher(t, DispatcherOptions{
				Process:       func(_ context.Context, ev adapter.Event) *adapter.Result { return tt.process(ev) },
				MaxDeliveries: 10, MinBackoff: time.Second, MaxBackoff: 10 * time.Second,
			})
			m := newMsg("m", tt.data, tt.deliveries)
			d.Handle(m)
			if got := m.wait(t); got != tt.settled || m.delay != tt.delay || m.reason != tt.reason {
				t.Errorf("settled %s delay %v reason %q; want %s %v %q", got, m.delay, m.reason, tt.settled, tt.delay, tt.reason)
			}
		})
	}
}

// Events for one key never run concurrently, under 8 workers; different
// keys do run concurrently.
func TestPerKeySerialization(t *testing.T) {
	var mu sync.Mutex
	running := map[string]int{}
	var maxParallel, violations atomic.Int32
	var current atomic.Int32
	d, _ := startDispatcher(t, DispatcherOptions{Workers: 8, Process: func(_ context.Context, ev adapter.Event) *adapter.Result {
		key := ev.Data["id"].(string)
		mu.Lock()
		running[key]++
		if running[key] > 1 {
			violations.Add(1)
		}
		mu.Unlock()
		if n := current.Add(1); n > maxParallel.Load() {
			maxParallel.Store(n)
		}
		time.Sleep(2 * time.Millisecond)
		current.Add(-1)
		mu.Lock()
		running[key]--
		mu.Unlock()
		return result(ev, nil, false)
	}})
	var msgs []*fakeMessage
	for i := 0; i < 200; i++ {
		m := newMsg(fmt.Sprint("m", i), map[string]any{"id": fmt.Sprint("c", i%10), "generation": i}, 1)
		msgs = append(msgs, m)
		d.Handle(m)
	}
	for _, m := range msgs {
		if got := m.wait(t); got != "ack" {
			t.Errorf("%s settled %s", m.id, got)
		}
	}
	if violations.Load() > 0 {
		t.Errorf("%d runs overlapped for the same key", violations.Load())
	}
	if maxParallel.Load() < 2 {
		t.Errorf("different keys never ran in parallel (max %d)", maxParallel.Load())
	}
}

// A burst for one key while it runs is coalesced into one run with the
// newest generation; every message of the burst is acked after it.
func TestBurstIsCoalesced(t *testing.T) {
	release := make(chan struct{})
	var gens []int64
	var mu sync.Mutex
	d, _ := startDispatcher(t, DispatcherOptions{Workers: 4, Process: func(_ context.Context, ev adapter.Event) *adapter.Result {
		mu.Lock()
		gens = append(gens, ev.Data["generation"].(int64))
		first := len(gens) == 1
		mu.Unlock()
		if first {
			<-release
		}
		return result(ev, nil, false)
	}})
	first := newMsg("first", map[string]any{"id": "c1", "generation": 1}, 1)
	d.Handle(first)
	waitFor(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(gens) == 1 })
	var burst []*fakeMessage
	for _, g := range []int{3, 5, 4, 2} {
		m := newMsg(fmt.Sprint("g", g), map[string]any{"id": "c1", "generation": g}, 1)
		burst = append(burst, m)
		d.Handle(m)
	}
	close(release)
	for _, m := range append(burst, first) {
		if got := m.wait(t); got != "ack" {
			t.Errorf("%s settled %s, want ack", m.id, got)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if fmt.Sprint(gens) != "[1 5]" {
		t.Errorf("runs for generations %v, want [1 5]", gens)
	}
}

// A burst coalesced under an event whose generation the API never held
// (issue 41: a forged 2^40, or an event from before the resource was
// recreated) settles none of the older events as done by it: they go back
// to the broker and run on their own; the one of its own generation is acked.
func TestBurstUnderUncheckedGenerationReleasesOlder(t *testing.T) {
	release := make(chan struct{})
	var mu sync.Mutex
	runs := 0
	d, _ := startDispatcher(t, DispatcherOptions{Workers: 4, MaxDeliveries: 5, MinBackoff: time.Millisecond, Process: func(_ context.Context, ev adapter.Event) *adapter.Result {
		mu.Lock()
		runs++
		first := runs == 1
		mu.Unlock()
		if first {
			<-release
		}
		res := result(ev, nil, false)
		if g := ev.Data["generation"].(int64); g > 5 {
			res = result(ev, errors.New("above the API's generation"), false)
			res.Generation.API, res.Generation.Verdict = 5, adapter.GenerationAhead
		}
		return res
	}})
	first := newMsg("first", map[string]any{"id": "c1", "generation": 1}, 1)
	d.Handle(first)
	waitFor(t, func() bool { mu.Lock(); defer mu.Unlock(); return runs == 1 })
	older := newMsg("g5", map[string]any{"id": "c1", "generation": 5}, 1)
	twin := newMsg("forged-twin", map[string]any{"id": "c1", "generation": 1 << 40}, 1)
	forged := newMsg("forged", map[string]any{"id": "c1", "generation": 1 << 40}, 1)
	for _, m := range []*fakeMessage{older, twin, forged} {
		d.Handle(m)
	}
	close(release)
	for m, want := range map[*fakeMessage]string{first: "ack", older: "release", twin: "ack", forged: "retry"} {
		if got := m.wait(t); got != want {
			t.Errorf("%s settled %s, want %s", m.id, got, want)
		}
	}
}

// Shutdown lets the run in flight finish and settle, and releases what is
// still queued: nothing is lost.
func TestShutdownDrainsInFlightAndReleasesQueued(t *testing.T) {
	started := make(chan struct{})
	release := make(chan struct{})
	d, _ := startDispatcher(t, DispatcherOptions{Workers: 1, Process: func(_ context.Context, ev adapter.Event) *adapter.Result {
		if ev.Data["id"] == "slow" {
			close(started)
			<-release
		}
		return result(ev, nil, false)
	}})
	slow := newMsg("slow", map[string]any{"id": "slow"}, 1)
	queued := newMsg("queued", map[string]any{"id": "other"}, 1)
	d.Handle(slow)
	<-started
	d.Handle(queued)
	shutdownDone := make(chan error)
	go func() { shutdownDone <- d.Shutdown(context.Background()) }()
	late := newMsg("late", map[string]any{"id": "late"}, 1)
	waitFor(t, func() bool { d.mu.Lock(); defer d.mu.Unlock(); return d.closing })
	d.Handle(late)
	close(release)
	if err := <-shutdownDone; err != nil {
		t.Fatal(err)
	}
	want := map[*fakeMessage]string{slow: "ack", queued: "release", late: "release"}
	for m, w := range want {
		if got := m.wait(t); got != w {
			t.Errorf("%s settled %s, want %s", m.id, got, w)
		}
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in time")
		}
		time.Sleep(time.Millisecond)
	}
}
