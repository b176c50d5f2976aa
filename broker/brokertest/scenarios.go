package brokertest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/broker"
)

// event is a valid structured-mode reconcile event.
const event = `{"specversion":"1.0","id":"e-1","type":"com.redhat.hyperfleet.cluster.reconcile","source":"hyperfleet-sentinel","data":{"id":"c-1","kind":"Cluster","generation":1}}`

// reconcile is a valid reconcile event with id ev-<id> for cluster id.
func reconcile(id string) string {
	return `{"specversion":"1.0","id":"ev-` + id + `","type":"com.redhat.hyperfleet.cluster.reconcile","source":"test","data":{"id":"` + id + `","kind":"Cluster","generation":1}}`
}

// Ack removes the message for good; a second settle is refused.
func ackRemovesMessage(t *testing.T, h Harness) {
	r := Start(t, h.Consumer(t, "ack"))
	ids := h.Publish(t, map[string]string{"ce-traceparent": "00-abc"}, event)
	m := r.Receive(t)
	if m.ID() != ids[0] || string(m.Body()) != event || m.Deliveries() != 1 || m.Attributes()["ce-traceparent"] != "00-abc" {
		t.Errorf("got id %s (published %s) body %q deliveries %d attributes %v", m.ID(), ids[0], m.Body(), m.Deliveries(), m.Attributes())
	}
	if err := m.Ack(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := m.Ack(context.Background()); !errors.Is(err, h.ErrSettled()) {
		t.Errorf("second Ack = %v, want %v", err, h.ErrSettled())
	}
	r.ExpectNone(t, 300*time.Millisecond)
	r.Stop(t) // an unacked message would be given back now
	WaitFor(t, "no message left after the ack", func() bool { return h.Remaining(t, "ack") == 0 })
}

// Retry redelivers the same message, not before the delay, counting the
// delivery and keeping body and attributes.
func retryRedeliversAfterDelay(t *testing.T, h Harness) {
	r := Start(t, h.Consumer(t, "retry"))
	ids := h.Publish(t, map[string]string{"ce-traceparent": "00-abc"}, event)
	m := r.Receive(t)
	for i, delay := range []time.Duration{time.Second, 1500 * time.Millisecond} {
		begin := time.Now()
		if err := m.Retry(context.Background(), delay); err != nil {
			t.Fatal(err)
		}
		m = r.Receive(t)
		if waited := time.Since(begin); waited < delay {
			t.Errorf("redelivered after %v, want at least %v", waited, delay)
		}
		if m.Deliveries() != i+2 || m.ID() != ids[0] || string(m.Body()) != event || m.Attributes()["ce-traceparent"] != "00-abc" {
			t.Errorf("redelivery %d: id %s (published %s) deliveries %d body %q attributes %v", i+1, m.ID(), ids[0], m.Deliveries(), m.Body(), m.Attributes())
		}
	}
	if err := m.Ack(context.Background()); err != nil {
		t.Fatal(err)
	}
	r.ExpectNone(t, 300*time.Millisecond)
}

// Release gives the message back: it comes again, counted.
func releaseRedelivers(t *testing.T, h Harness) {
	r := Start(t, h.Consumer(t, "release"))
	ids := h.Publish(t, nil, event)
	m := r.Receive(t)
	if err := m.Release(context.Background()); err != nil {
		t.Fatal(err)
	}
	again := r.Receive(t)
	if again.ID() != m.ID() || again.ID() != ids[0] || again.Deliveries() != 2 {
		t.Errorf("released message %s came back as %s with deliveries %d", m.ID(), again.ID(), again.Deliveries())
	}
	if err := again.Ack(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// DeadLetter moves the message, body and attributes, with the reason
// attached; the original is gone.
func deadLetterStoresReason(t *testing.T, h Harness) {
	r := Start(t, h.Consumer(t, "dead"))
	h.Publish(t, map[string]string{"ce-id": "x-1"}, "not json")
	m := r.Receive(t)
	if err := m.DeadLetter(context.Background(), "malformed: not JSON"); err != nil {
		t.Fatal(err)
	}
	d := waitDeadLetters(t, h, "dead", 1)[0]
	if string(d.Body) != "not json" || d.Attributes[broker.ReasonAttribute] != "malformed: not JSON" || d.Attributes["ce-id"] != "x-1" {
		t.Errorf("dead-lettered: body %q id %s attributes %v", d.Body, d.ID, d.Attributes)
	}
	h.CheckDeadLetter(t, m, "dead", d)
	r.ExpectNone(t, 300*time.Millisecond)
	r.Stop(t)
	WaitFor(t, "the original gone", func() bool { return h.Remaining(t, "dead") == 0 })
}

// Consumers sharing a subscription id compete: each message reaches one.
func sameSubscriptionCompetes(t *testing.T, h Harness) {
	a, b := Start(t, h.Consumer(t, "shared")), Start(t, h.Consumer(t, "shared"))
	time.Sleep(200 * time.Millisecond) // both subscribed streams open
	const n = 20
	bodies := make([]string, n)
	for i := range bodies {
		bodies[i] = fmt.Sprint(i)
	}
	published := map[string]bool{}
	for _, id := range h.Publish(t, nil, bodies...) {
		published[id] = true
	}
	seen := map[string]string{}
	counts := map[string]int{}
	for len(seen) < n {
		var m broker.Message
		var who string
		select {
		case m = <-a.Messages():
			who = "a"
		case m = <-b.Messages():
			who = "b"
		case <-time.After(10 * time.Second):
			t.Fatalf("got %d of %d messages", len(seen), n)
		}
		if prev, dup := seen[m.ID()]; dup {
			t.Errorf("message %s delivered to %s and %s", m.ID(), prev, who)
		}
		if !published[m.ID()] {
			t.Errorf("message %s was not published", m.ID())
		}
		seen[m.ID()] = who
		counts[who]++
		if err := m.Ack(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if counts["a"] == 0 || counts["b"] == 0 {
		t.Errorf("deliveries per consumer %v: want both to get some", counts)
	}
	a.ExpectNone(t, 200*time.Millisecond)
	b.ExpectNone(t, 0)
}

// Different subscription ids have their own queues: each gets every event.
func subscriptionsEachGetEveryEvent(t *testing.T, h Harness) {
	one, two := Start(t, h.Consumer(t, "one")), Start(t, h.Consumer(t, "two"))
	ids := h.Publish(t, nil, event)
	for _, r := range []*Running{one, two} {
		m := r.Receive(t)
		if m.ID() != ids[0] {
			t.Errorf("got %s, want %s", m.ID(), ids[0])
		}
		if err := m.Ack(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
}

// When its context is done Consume stops receiving but returns only once
// the messages handed out are settled, and they still can be.
func shutdownWaitsForOutstanding(t *testing.T, h Harness) {
	r := Start(t, h.Consumer(t, "drain"))
	h.Publish(t, nil, event)
	m := r.Receive(t)
	r.Cancel()
	WaitFor(t, "Ready false", func() bool { return !r.Ready() })
	select {
	case <-r.Done():
		t.Fatalf("Consume returned %v with a message outstanding", r.Err())
	case <-time.After(200 * time.Millisecond):
	}
	if err := m.Ack(context.Background()); err != nil {
		t.Fatalf("Ack during shutdown: %v", err)
	}
	select {
	case <-r.Done():
		if r.Err() != nil {
			t.Errorf("Consume returned %v", r.Err())
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Consume did not return once the message was settled")
	}
	WaitFor(t, "the message acked during shutdown gone", func() bool { return h.Remaining(t, "drain") == 0 })
}

// The delivery contract end to end through the dispatcher: a success is
// acked; a failing event is redelivered with backoff max_deliveries times,
// then dead-lettered with its last error; a malformed message is
// dead-lettered at once with the reason.
func deliveryContract(t *testing.T, h Harness) {
	var runs atomic.Int32
	var mu sync.Mutex
	outcomes := map[string]string{}
	stop := dispatch(t, h.Consumer(t, "contract"), broker.DispatcherOptions{
		Workers: 2, MaxDeliveries: 3, MinBackoff: 100 * time.Millisecond, MaxBackoff: 400 * time.Millisecond,
		Process: func(_ context.Context, ev adapter.Event) *adapter.Result {
			res := &adapter.Result{Event: ev, ExecutionStatus: adapter.ExecutionSuccess}
			if ev.Data["id"] == "failing" {
				runs.Add(1)
				pe := &adapter.PhaseError{Phase: "resources", Step: "job", Message: "maestro unavailable"}
				res.ExecutionStatus, res.Error, res.Errors = adapter.ExecutionFailed, pe, []*adapter.PhaseError{pe}
			}
			return res
		},
		Hooks: broker.Hooks{Processed: func(res *adapter.Result, _ time.Duration, outcome string) {
			mu.Lock()
			defer mu.Unlock()
			outcomes[res.Event.ID] = outcome
		}},
	})
	h.Publish(t, nil, reconcile("ok"))
	h.Publish(t, nil, reconcile("failing"))
	h.Publish(t, nil, "not a cloudevent")

	reasons := map[string]bool{}
	for _, d := range waitDeadLetters(t, h, "contract", 2) {
		reasons[d.Attributes[broker.ReasonAttribute]] = true
	}
	if !reasons["failed 3 deliveries, last error: resources job: maestro unavailable"] {
		t.Errorf("dead-letter reasons %v lack the failing event after 3 deliveries", reasons)
	}
	malformed := false
	for r := range reasons {
		malformed = malformed || strings.HasPrefix(r, "malformed:")
	}
	if !malformed {
		t.Errorf("dead-letter reasons %v lack the malformed message", reasons)
	}
	if n := runs.Load(); n != 3 {
		t.Errorf("the failing event ran %d times, want 3 (max_deliveries)", n)
	}
	WaitFor(t, "the good event acked", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return outcomes["ev-ok"] == broker.SettledAcked
	})
	WaitFor(t, "the subscription drained", func() bool { return h.Remaining(t, "contract") == 0 })
	stop()
	WaitFor(t, "nothing given back at stop", func() bool { return h.Remaining(t, "contract") == 0 })
	if dl := h.DeadLetters(t, "contract"); len(dl) != 0 {
		t.Errorf("%d more messages dead-lettered, want only the two", len(dl))
	}
}

// A message over broker.MaxEventBytes is dead-lettered at once with a
// reason naming its size, never reaching the pipeline; the next, normal
// event is processed.
func oversizedEventDeadLettered(t *testing.T, h Harness) {
	processed := make(chan string, 10)
	stop := dispatch(t, h.Consumer(t, "oversized"), broker.DispatcherOptions{
		Process: func(_ context.Context, ev adapter.Event) *adapter.Result {
			processed <- ev.ID
			return &adapter.Result{Event: ev, ExecutionStatus: adapter.ExecutionSuccess}
		},
	})
	event := func(id string, pad int) string {
		return fmt.Sprintf(`{"specversion":"1.0","id":%q,"type":"t","source":"s","data":{"id":"c1","kind":"Cluster","generation":1,"pad":%q}}`, id, strings.Repeat("x", pad))
	}
	big := event("e-big", broker.MaxEventBytes)
	h.Publish(t, map[string]string{"content-type": "application/cloudevents+json"}, big)
	dl := waitDeadLetters(t, h, "oversized", 1)[0]
	reason := dl.Attributes[broker.ReasonAttribute]
	want := fmt.Sprintf("body is %d bytes, over the event size limit of %d bytes (broker.MaxEventBytes)", len(big), broker.MaxEventBytes)
	if !strings.HasPrefix(reason, "malformed: ") || !strings.Contains(reason, want) {
		t.Errorf("dead-letter reason %q, want malformed naming %q", reason, want)
	}
	if len(dl.Body) != len(big) {
		t.Errorf("dead-lettered body is %d bytes, want the original %d", len(dl.Body), len(big))
	}
	h.Publish(t, nil, event("e-small", 10))
	select {
	case id := <-processed:
		if id != "e-small" {
			t.Errorf("processed %s, want only e-small", id)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the normal event after the oversized one was not processed")
	}
	stop()
}

// The message the real Sentinel sends (broker/testdata) is accepted as it
// is: decoded to its CloudEvent, processed, and acked after the handler
// succeeded; nothing is dead-lettered.
func sentinelMessageAccepted(t *testing.T, h Harness) {
	f, err := LoadSentinel(SentinelFixture)
	if err != nil {
		t.Fatal(err)
	}
	var ce struct {
		ID, Type, Source string
		Data             map[string]any
	}
	if err := json.Unmarshal([]byte(f.Body), &ce); err != nil {
		t.Fatalf("fixture body: %v", err)
	}
	type run struct {
		ev      adapter.Event
		outcome string
	}
	runs := make(chan run, 10)
	stop := dispatch(t, h.Consumer(t, "sentinel"), broker.DispatcherOptions{
		Process: func(_ context.Context, ev adapter.Event) *adapter.Result {
			return &adapter.Result{Event: ev, ExecutionStatus: adapter.ExecutionSuccess}
		},
		Hooks: broker.Hooks{Processed: func(res *adapter.Result, _ time.Duration, outcome string) {
			runs <- run{res.Event, outcome}
		}},
	})
	h.PublishSentinel(t, f)
	select {
	case r := <-runs:
		if r.ev.ID != ce.ID || r.ev.Type != ce.Type || r.ev.Source != ce.Source ||
			fmt.Sprint(r.ev.Data) != fmt.Sprint(ce.Data) {
			t.Errorf("decoded %+v, want the fixture's CloudEvent %+v", r.ev, ce)
		}
		if r.outcome != broker.SettledAcked {
			t.Errorf("outcome %s, want %s", r.outcome, broker.SettledAcked)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("the Sentinel message was not processed (dead letters: %v)", h.DeadLetters(t, "sentinel"))
	}
	WaitFor(t, "the Sentinel message acked", func() bool { return h.Remaining(t, "sentinel") == 0 })
	stop()
	WaitFor(t, "nothing given back at stop", func() bool { return h.Remaining(t, "sentinel") == 0 })
	if dl := h.DeadLetters(t, "sentinel"); len(dl) != 0 {
		t.Errorf("dead-lettered %d messages: %v", len(dl), dl[0].Attributes[broker.ReasonAttribute])
	}
}

// dispatch runs a dispatcher (broker.Decode, quiet logger, o's other
// settings) over c until stop, which cancels both and checks Consume
// returned nil. stop runs at the end of t if not called before.
func dispatch(t *testing.T, c broker.Consumer, o broker.DispatcherOptions) (stop func()) {
	t.Helper()
	o.Decode = broker.Decode
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	d, err := broker.NewDispatcher(o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan struct{})
	go func() { d.Run(ctx); close(ran) }()
	consumed := make(chan error, 1)
	go func() { consumed <- c.Consume(ctx, d.Handle) }()
	WaitFor(t, "consumer ready", c.Ready)
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-consumed:
				if err != nil {
					t.Errorf("Consume returned %v", err)
				}
			case <-time.After(10 * time.Second):
				t.Error("Consume did not return after its context was done")
			}
			<-ran
		})
	}
	t.Cleanup(stop)
	return stop
}

// waitDeadLetters waits until n messages were dead-lettered from
// subscription and returns them.
func waitDeadLetters(t *testing.T, h Harness, subscription string, n int) []Delivered {
	t.Helper()
	var got []Delivered
	WaitFor(t, fmt.Sprintf("%d dead letters", n), func() bool {
		got = append(got, h.DeadLetters(t, subscription)...)
		return len(got) >= n
	})
	if len(got) > n {
		t.Errorf("%d dead letters, want %d", len(got), n)
	}
	return got
}
