package broker

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// step is one message handed to the dispatcher, waited for until settled.
type step struct {
	id         string // CloudEvent id (the fake's message id)
	cluster    string
	gen        int
	deliveries int
	outcome    string // what its run returns: ok, fail (retried), invalid (dead-lettered); unchecked (failed before the API was read), ahead (a generation the API never held): both retried
	settled    string // how the message must be settled
	ran        bool   // whether its event must run
}

// runSteps hands the steps one at a time to a one-worker dispatcher, each
// after the previous settled, and checks each settlement and run; it
// returns how many were counted superseded.
func runSteps(t *testing.T, o DispatcherOptions, steps []step) int {
	t.Helper()
	var mu sync.Mutex
	ran := map[string]int{}
	outcome := map[string]string{} // of the step being handled
	var superseded atomic.Int32
	o.Workers = 1
	o.MaxDeliveries = 5
	o.Hooks.Superseded = func() { superseded.Add(1) }
	o.Process = func(_ context.Context, ev adapter.Event) *adapter.Result {
		mu.Lock()
		ran[ev.ID]++
		out := outcome[ev.ID]
		mu.Unlock()
		switch out {
		case "fail":
			return result(ev, errors.New("api refused the status report"), false)
		case "invalid":
			return result(ev, errors.New("no generation"), true)
		case "unchecked":
			res := result(ev, errors.New("api GET: 503"), false)
			res.Generation = adapter.GenerationCheck{}
			return res
		case "ahead":
			res := result(ev, errors.New("the event's generation is above the API's"), false)
			res.Generation.API, res.Generation.Verdict = 1, adapter.GenerationAhead
			return res
		}
		return result(ev, nil, false)
	}
	d, _ := startDispatcher(t, o)
	for i, s := range steps {
		mu.Lock()
		before := ran[s.id]
		outcome[s.id] = s.outcome
		mu.Unlock()
		m := newMsg(s.id, map[string]any{"kind": "Cluster", "id": s.cluster, "generation": s.gen}, s.deliveries)
		d.Handle(m)
		got := m.wait(t)
		mu.Lock()
		didRun := ran[s.id] > before
		mu.Unlock()
		if got != s.settled || didRun != s.ran {
			t.Errorf("step %d (%s delivery %d): settled %s, ran %v; want %s, ran %v", i, s.id, s.deliveries, got, didRun, s.settled, s.ran)
		}
	}
	return int(superseded.Load())
}

// A redelivery of an event is acked without running when the dispatcher
// took a newer event of the same resource that did or will do its work
// (issue 31); in every other case it runs as before.
func TestRedeliverySupersededByNewerEvent(t *testing.T) {
	tests := []struct {
		name       string
		steps      []step
		superseded int
	}{
		{"redelivery superseded by a newer first delivery still failing", []step{
			{"e", "c1", 1, 1, "fail", "retry", true},
			{"n", "c1", 1, 1, "fail", "retry", true},
			{"e", "c1", 1, 2, "fail", "ack", false},
			{"n", "c1", 1, 2, "ok", "ack", true},
		}, 1},
		{"redelivery superseded by a newer acked event", []step{
			{"e", "c1", 1, 1, "fail", "retry", true},
			{"n", "c1", 1, 1, "ok", "ack", true},
			{"e", "c1", 1, 2, "fail", "ack", false},
		}, 1},
		{"redelivery superseded by a higher generation", []step{
			{"e", "c1", 1, 1, "fail", "retry", true},
			{"n", "c1", 2, 1, "fail", "retry", true},
			{"e", "c1", 1, 3, "fail", "ack", false},
		}, 1},
		{"not superseded when the newer was dead-lettered", []step{
			{"e", "c1", 1, 1, "fail", "retry", true},
			{"n", "c1", 1, 1, "invalid", "dead-letter", true},
			{"e", "c1", 1, 2, "ok", "ack", true},
		}, 0},
		{"not superseded by an older event", []step{
			{"e", "c1", 2, 1, "fail", "retry", true},
			{"o", "c1", 1, 1, "fail", "retry", true},
			{"e", "c1", 2, 2, "ok", "ack", true},
			{"o", "c1", 1, 2, "fail", "ack", false}, // e (generation 2) did its work
		}, 1},
		{"different keys are independent", []step{
			{"e", "c1", 1, 1, "fail", "retry", true},
			{"n", "c2", 5, 1, "ok", "ack", true},
			{"e", "c1", 1, 2, "ok", "ack", true},
		}, 0},
		{"first deliveries are never superseded", []step{
			{"n", "c1", 2, 1, "ok", "ack", true},
			{"e", "c1", 1, 1, "ok", "ack", true},
			{"f", "c1", 2, 1, "ok", "ack", true},
		}, 0},
		{"own redelivery runs", []step{
			{"e", "c1", 1, 1, "fail", "retry", true},
			{"e", "c1", 1, 2, "fail", "retry", true},
			{"e", "c1", 1, 3, "ok", "ack", true},
		}, 0},
		{"a redelivery never taken here is superseded only by a higher generation", []step{
			{"n", "c1", 2, 1, "fail", "retry", true},
			{"x", "c1", 2, 3, "ok", "ack", true},
			{"y", "c1", 1, 3, "ok", "ack", false},
		}, 1},
		// Issue 41: superseding believes only a generation the API held.
		{"a generation the API never held supersedes nothing", []step{
			{"e", "c1", 1, 1, "fail", "retry", true},
			{"p", "c1", 1 << 40, 1, "ahead", "retry", true},
			{"e", "c1", 1, 2, "ok", "ack", true},
			{"x", "c1", 1, 3, "ok", "ack", true},
		}, 0},
		{"an unchecked higher generation supersedes nothing", []step{
			{"e", "c1", 1, 1, "fail", "retry", true},
			{"n", "c1", 2, 1, "unchecked", "retry", true},
			{"e", "c1", 1, 2, "ok", "ack", true},
		}, 0},
		{"a fresh lower generation starts over", []step{
			{"n", "c1", 9, 1, "ok", "ack", true},
			{"r", "c1", 1, 1, "fail", "retry", true}, // the resource recreated under its id
			{"r", "c1", 1, 2, "ok", "ack", true},
			{"y", "c1", 1, 3, "ok", "ack", true},
		}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := runSteps(t, DispatcherOptions{MinBackoff: time.Millisecond}, tt.steps); got != tt.superseded {
				t.Errorf("%d superseded counted, want %d", got, tt.superseded)
			}
		})
	}
}

// The memory is bounded in keys and age: a forgotten key supersedes
// nothing, so its redelivery runs.
func TestSupersedeMemoryBound(t *testing.T) {
	at := time.Unix(1_700_000_000, 0)
	tests := []struct {
		name    string
		maxKeys int
		between func(d *Dispatcher) // after n was taken, before e's redelivery
		ran     bool
	}{
		{"remembered", 2, func(*Dispatcher) {}, false},
		{"evicted past the key cap by another key", 1, func(d *Dispatcher) {
			d.Handle(newMsg("other", map[string]any{"kind": "Cluster", "id": "c2"}, 1))
		}, true},
		{"forgotten past the age limit", 2, func(d *Dispatcher) { d.mu.Lock(); at = at.Add(SupersedeMaxAge); d.mu.Unlock() }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var runs atomic.Int32
			d, _ := startDispatcher(t, DispatcherOptions{Workers: 1, Process: func(_ context.Context, ev adapter.Event) *adapter.Result {
				if ev.ID == "e" {
					runs.Add(1)
				}
				return result(ev, errors.New("api refused"), false)
			}})
			d.mu.Lock()
			d.mem = newSupersedeMemory(tt.maxKeys, SupersedeMaxAge)
			d.mem.now = func() time.Time { return at }
			d.mu.Unlock()
			for _, m := range []*fakeMessage{
				newMsg("e", map[string]any{"kind": "Cluster", "id": "c1"}, 1),
				newMsg("n", map[string]any{"kind": "Cluster", "id": "c1", "generation": 2}, 1),
			} {
				d.Handle(m)
				m.wait(t)
			}
			tt.between(d)
			waitFor(t, func() bool { d.mu.Lock(); defer d.mu.Unlock(); return d.held == 0 })
			m := newMsg("e", map[string]any{"kind": "Cluster", "id": "c1"}, 2)
			d.Handle(m)
			m.wait(t)
			if got := runs.Load() == 2; got != tt.ran {
				t.Errorf("redelivery ran %v, want %v", got, tt.ran)
			}
		})
	}
}

// The lru forgets the entry put longest ago past its cap, and every entry
// at its age limit.
func TestLRUBounds(t *testing.T) {
	at := time.Unix(0, 0)
	c := newLRU[int](2, time.Minute)
	c.put("a", 1, at)
	c.put("b", 2, at.Add(time.Second))
	c.put("a", 3, at.Add(2*time.Second)) // a is now the newest
	c.put("c", 4, at.Add(3*time.Second))
	if _, ok := c.get("b", at); ok || c.len() != 2 {
		t.Errorf("b kept past the cap (len %d)", c.len())
	}
	if v, ok := c.get("a", at.Add(time.Minute)); !ok || v != 3 {
		t.Errorf("a = %d, %v; want 3 within its age", v, ok)
	}
	if _, ok := c.get("a", at.Add(2*time.Second+time.Minute)); ok {
		t.Error("a kept at its age limit")
	}
	c.put("d", 5, at.Add(10*time.Minute))
	if c.len() != 1 {
		t.Errorf("%d entries after an hour, want 1", c.len())
	}
}

// stormMessage is a fake broker message whose Retry has the fake broker
// deliver a copy (one more delivery) after the delay, as RabbitMQ's retry
// queues and Pub/Sub's retry policy do.
type stormMessage struct {
	*fakeMessage
	data      map[string]any
	redeliver func(data map[string]any, id string, deliveries int, delay time.Duration)
}

func (m *stormMessage) Retry(ctx context.Context, delay time.Duration) error {
	if err := m.fakeMessage.Retry(ctx, delay); err != nil {
		return err
	}
	m.redeliver(m.data, m.id, m.deliveries+1, delay)
	return nil
}

// storm is the soak of issue 31 on a scaled clock: Sentinel publishes an
// event per cluster every period while the API refuses every status report
// for window, then once more with the API back.
type storm struct {
	clusters      int
	unit          time.Duration // one second of the soak
	period        time.Duration // Sentinel's resend, in soak seconds
	window        time.Duration
	minBackoff    time.Duration
	maxDeliveries int
}

type stormCounts struct {
	published, runs, superseded, deadLetters int
	runsPer                                  map[string]int
	lastOK                                   map[string]bool // the cluster's last event ran successfully
}

func (s storm) run(t *testing.T) stormCounts {
	t.Helper()
	var mu sync.Mutex
	c := stormCounts{runsPer: map[string]int{}, lastOK: map[string]bool{}}
	last := map[string]string{}
	var outage atomic.Bool
	outage.Store(true)
	var dead, superseded atomic.Int32
	var pending sync.WaitGroup
	d, _ := startDispatcher(t, DispatcherOptions{
		Workers: 4, MaxDeliveries: s.maxDeliveries,
		MinBackoff: s.minBackoff * s.unit, MaxBackoff: 60 * s.unit,
		Hooks: Hooks{DeadLettered: func(string) { dead.Add(1) }, Superseded: func() { superseded.Add(1) }},
		Process: func(_ context.Context, ev adapter.Event) *adapter.Result {
			mu.Lock()
			defer mu.Unlock()
			cl := ev.Data["id"].(string)
			c.runs++
			c.runsPer[cl]++
			if outage.Load() {
				return result(ev, errors.New("api refused the status report"), false)
			}
			if ev.ID == last[cl] {
				c.lastOK[cl] = true
			}
			return result(ev, nil, false)
		},
	})
	var handle func(data map[string]any, id string, deliveries int)
	redeliver := func(data map[string]any, id string, deliveries int, delay time.Duration) {
		pending.Add(1)
		time.AfterFunc(delay, func() { defer pending.Done(); handle(data, id, deliveries) })
	}
	handle = func(data map[string]any, id string, deliveries int) {
		d.Handle(&stormMessage{fakeMessage: newMsg(id, data, deliveries), data: data, redeliver: redeliver})
	}
	publish := func(round int) {
		for i := 0; i < s.clusters; i++ {
			cl := fmt.Sprintf("cluster-%d", i)
			id := fmt.Sprintf("%s-event-%d", cl, round)
			mu.Lock()
			c.published++
			last[cl] = id
			mu.Unlock()
			handle(map[string]any{"kind": "Cluster", "id": cl, "generation": 1}, id, 1)
		}
	}
	start := time.Now()
	rounds := int(s.window / s.period)
	for r := 0; r < rounds; r++ {
		time.Sleep(time.Until(start.Add(time.Duration(r) * s.period * s.unit)))
		publish(r)
	}
	time.Sleep(time.Until(start.Add(s.window * s.unit)))
	outage.Store(false)
	publish(rounds)
	pending.Wait() // every redelivery handed over (the last ones settle below)
	waitFor(t, func() bool { d.mu.Lock(); defer d.mu.Unlock(); return d.held == 0 })
	mu.Lock()
	defer mu.Unlock()
	c.superseded, c.deadLetters = int(superseded.Load()), int(dead.Load())
	return c
}

// The retry storm of issue 31: while the API refuses every status report,
// each Sentinel event's redeliveries stop once the next Sentinel event of
// its cluster was taken, so runs fall from max_deliveries per event to the
// deliveries that fit in one Sentinel period (1 + log2 of period over
// min_backoff), and to one per event when min_backoff is at least the
// period. After the outage every cluster's newest event runs and succeeds.
func TestRetryStormSuperseded(t *testing.T) {
	if testing.Short() {
		t.Skip("scaled-clock simulation of a two-minute outage")
	}
	tests := []struct {
		name        string
		minBackoff  time.Duration // soak seconds
		runsPerEvnt int           // bound of runs per published event
	}{
		{"default min_backoff 1s", 1, 3},
		{"min_backoff 10s, above Sentinel's period", 10, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := storm{clusters: 4, unit: 20 * time.Millisecond, period: 5, window: 120, minBackoff: tt.minBackoff, maxDeliveries: 5}
			c := s.run(t)
			t.Logf("published %d events, %d runs (%v per cluster), %d superseded, %d dead letters",
				c.published, c.runs, c.runsPer, c.superseded, c.deadLetters)
			if bound := tt.runsPerEvnt*c.published + s.clusters; c.runs > bound {
				t.Errorf("%d runs for %d published events, want at most %d", c.runs, c.published, bound)
			}
			for i := 0; i < s.clusters; i++ {
				if cl := fmt.Sprintf("cluster-%d", i); !c.lastOK[cl] {
					t.Errorf("%s: its newest event never ran successfully", cl)
				}
			}
		})
	}
}

// The memory of event ids holds only events that wait for their own
// redelivery (settled as retried): an event acked at once is never
// redelivered, so remembering its id would only cost memory (at 300
// events/s a replica filled the 100,000-id cap in under 6 minutes, about
// 25 MB, in the 30-minute soak).
func TestSupersedeMemoryHoldsOnlyRetriedEvents(t *testing.T) {
	d, _ := startDispatcher(t, DispatcherOptions{Workers: 2, Process: func(_ context.Context, ev adapter.Event) *adapter.Result {
		if ev.ID == "fails" {
			return result(ev, errors.New("api refused"), false)
		}
		return result(ev, nil, false)
	}})
	var msgs []*fakeMessage
	for i := range 100 {
		msgs = append(msgs, newMsg(fmt.Sprint("ok-", i), map[string]any{"kind": "Cluster", "id": fmt.Sprint("c", i%10)}, 1))
	}
	msgs = append(msgs, newMsg("fails", map[string]any{"kind": "Cluster", "id": "c-fail"}, 1))
	for _, m := range msgs {
		d.Handle(m)
	}
	for _, m := range msgs {
		m.wait(t)
	}
	d.mu.Lock()
	n := d.mem.events.len()
	_, failed := d.mem.events.get("fails", time.Now())
	d.mu.Unlock()
	if n != 1 || !failed {
		t.Fatalf("event ids remembered: %d (the retried one among them: %v), want only the retried one", n, failed)
	}
}
