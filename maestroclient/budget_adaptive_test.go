package maestroclient

import (
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	workv1 "open-cluster-management.io/api/work/v1"
)

// agentLatency is how long a quick agent takes to report a write: the
// round trip of a spec event and its status on a local stack.
const agentLatency = 20 * time.Millisecond

// agent is a simulated agent: it reports every write latency after it
// was sent, until stopAt (0: never stops); latency 0 never reports.
type agent struct {
	latency, stopAt time.Duration
	// drain, when set, makes the agent serial: it applies one write at a
	// time, drain per second, in the order sent, and reports each when it
	// is applied (a real agent's queue: latency grows with the backlog).
	drain float64
}

// run is what drive saw.
type run struct {
	sent int
	took time.Duration // until the last write was sent
	// maxAbove is the most writes sent and not yet reported while the
	// budget's rate was above its floor.
	maxAbove int
	rate     float64 // c1's rate at the end
}

// driveStep is the simulation's tick.
const driveStep = 5 * time.Millisecond

// drive sends writes of consumer c1 (each its own bundle) as fast as b
// lets it, every driveStep of clock, until writes are sent (0: until
// limit) or limit has passed; a reports them to b as a status stream
// would.
func drive(b *budget, clock *fakeClock, a agent, writes int, limit time.Duration) run {
	var r run
	start := clock.t
	sentAt := map[string]time.Time{}
	var queue []string // a serial agent's backlog, oldest first
	var free time.Time // when a serial agent has applied its current write
	for elapsed := time.Duration(0); elapsed < limit && (writes == 0 || r.sent < writes); elapsed = clock.t.Sub(start) {
		for a.drain > 0 && len(queue) > 0 {
			done := later(free, sentAt[queue[0]]).Add(time.Duration(float64(time.Second) / a.drain))
			if clock.t.Before(done) {
				break
			}
			b.Status(work("c1", queue[0]))
			delete(sentAt, queue[0])
			queue, free = queue[1:], done
		}
		for name, at := range sentAt {
			if a.drain > 0 {
				break
			}
			if a.latency > 0 && clock.t.Sub(at) >= a.latency && (a.stopAt == 0 || elapsed < a.stopAt) {
				b.Status(work("c1", name))
				delete(sentAt, name)
			}
		}
		for writes == 0 || r.sent < writes {
			name := fmt.Sprint("w-", r.sent)
			if !b.reserve("c1", name, 0).ok {
				break
			}
			sentAt[name] = clock.t
			queue = append(queue, name)
			r.sent++
			r.took = elapsed
			if b.consumers["c1"].rate > b.perSecond {
				r.maxAbove = max(r.maxAbove, len(sentAt))
			}
		}
		clock.add(driveStep)
	}
	r.rate = b.consumers["c1"].rate
	return r
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func work(consumer, name string) *workv1.ManifestWork {
	return &workv1.ManifestWork{ObjectMeta: metav1.ObjectMeta{Namespace: consumer, Name: name, UID: "uid-" + "x"}}
}

func adaptiveBudget(clock *fakeClock, window int) *budget {
	return newBudget(WriteBudget{Mode: BudgetAdaptive, PerSecond: DefaultConsumerWritesPerSecond,
		Burst: DefaultConsumerWriteBurst, Ceiling: DefaultConsumerWriteCeiling, Window: window}, clock.now)
}

// The adaptive budget rises to its ceiling while the agent reports every
// write quickly, falls back to the floor when the reports stop, settles
// low for a slow agent, stays at the floor without a stream; and while it
// is above the floor, never more than the window is unreported.
func TestAdaptiveBudgetFollowsTheAgent(t *testing.T) {
	const floor, ceiling, window = DefaultConsumerWritesPerSecond, DefaultConsumerWriteCeiling, DefaultConsumerWriteWindow
	tests := []struct {
		name         string
		stream       bool
		agent        agent
		limit        time.Duration
		minRate      float64
		maxRate      float64
		wantBackoffs bool
		// minSent, maxSent bound the writes sent within limit.
		minSent, maxSent int
	}{
		{"quick agent: up to the ceiling", true, agent{latency: agentLatency}, 10 * time.Second, ceiling, ceiling, false, 2000, 4000},
		{"reports stop: back to the floor", true, agent{latency: agentLatency, stopAt: 10 * time.Second}, 20 * time.Second, floor, floor, true, 2000, 6000},
		// Little's law: the window outstanding at 1 s each is its size per
		// second; the rate stays up (nothing times out), the window clocks
		// the writes.
		{"slow agent (1 s): the window per second", true, agent{latency: time.Second}, 20 * time.Second, floor, ceiling, false, 19 * window, 20*window + 25},
		// A serial agent applying 25/s (what one real agent drained here,
		// docs/reliability.md): the budget sends as fast as it applies,
		// never more than the window ahead of it.
		{"serial agent at 25/s: as fast as it applies", true, agent{drain: 25}, 20 * time.Second, floor, ceiling, false, 19 * 25, 20*25 + window + 25},
		// A serial agent slower than the floor still gets no more than the
		// window ahead once the budget has risen, and nothing times out.
		{"serial agent at 10/s: as fast as it applies", true, agent{drain: 10}, 30 * time.Second, floor, ceiling, false, 29 * 10, 30*10 + window + 25},
		{"agent that never reports: the floor", true, agent{}, 20 * time.Second, floor, floor, false, 20 * floor, 20*floor + 25},
		{"no stream: the floor", false, agent{latency: agentLatency}, 10 * time.Second, floor, floor, false, 10 * floor, 10*floor + 25},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := newFakeClock()
			b := adaptiveBudget(clock, window)
			if tt.stream {
				b.Subscribed()
			}
			r := drive(b, clock, tt.agent, 0, tt.limit)
			if r.rate < tt.minRate || r.rate > tt.maxRate {
				t.Errorf("rate after %s: %v/s, want within [%v, %v]", tt.limit, r.rate, tt.minRate, tt.maxRate)
			}
			if (b.backoffs > 0) != tt.wantBackoffs {
				t.Errorf("%d back-offs, want some: %v", b.backoffs, tt.wantBackoffs)
			}
			if r.maxAbove > window {
				t.Errorf("%d writes unreported above the floor, window %d", r.maxAbove, window)
			}
			if r.sent < tt.minSent || r.sent > tt.maxSent {
				t.Errorf("%d writes sent in %s, want within [%d, %d]", r.sent, tt.limit, tt.minSent, tt.maxSent)
			}
		})
	}
}

// At its floor (no stream, or an agent that reports nothing) the adaptive
// budget sends exactly what the fixed one sends.
func TestAdaptiveBudgetFloorIsTheFixedBudget(t *testing.T) {
	for _, a := range []agent{{}, {latency: agentLatency}} {
		for _, stream := range []bool{false, true} {
			if stream && a.latency > 0 {
				continue // it rises, as it should
			}
			t.Run(fmt.Sprint("stream=", stream, " latency=", a.latency), func(t *testing.T) {
				fixedClock, clock := newFakeClock(), newFakeClock()
				fixed := newBudget(WriteBudget{Mode: BudgetFixed, PerSecond: DefaultConsumerWritesPerSecond, Burst: DefaultConsumerWriteBurst}, fixedClock.now)
				b := adaptiveBudget(clock, DefaultConsumerWriteWindow)
				if stream {
					b.Subscribed()
				}
				want := drive(fixed, fixedClock, a, 0, 10*time.Second)
				got := drive(b, clock, a, 0, 10*time.Second)
				if got.sent != want.sent || got.took != want.took {
					t.Errorf("adaptive at its floor sent %d by %s, fixed %d by %s", got.sent, got.took, want.sent, want.took)
				}
			})
		}
	}
}

// Above the floor a full window holds writes back until a report comes
// (or the oldest write's timeout): then the next write goes.
func TestAdaptiveBudgetWindowWaitsForAReport(t *testing.T) {
	clock := newFakeClock()
	b := adaptiveBudget(clock, 2)
	b.Subscribed()
	b.reserve("c1", "a", 0)
	b.consumers["c1"].rate = 100 // above the floor
	b.reserve("c1", "b", 0)
	clock.add(time.Second)
	g := b.reserve("c1", "c", time.Hour)
	if g.ok || g.full == nil || g.wait != drainTimeout-time.Second {
		t.Fatalf("third write with a window of 2: %+v, want held until a report or a's timeout in %s", g, drainTimeout-time.Second)
	}
	b.Status(work("c1", "a"))
	select {
	case <-g.full:
	default:
		t.Fatal("a report did not wake the writes waiting on the window")
	}
	if g := b.reserve("c1", "c", time.Hour); !g.ok {
		t.Errorf("after a report: %+v, want the write to go", g)
	}
}

// A (re)subscription forgets every outstanding write: their reports may
// have been lost, and must not count as the agent being behind. A write
// that was not sent is forgotten too.
func TestAdaptiveBudgetForgetsOnSubscribedAndUnsent(t *testing.T) {
	tests := []struct {
		name   string
		forget func(b *budget)
	}{
		{"resubscribed", func(b *budget) { b.Subscribed() }},
		{"not sent", func(b *budget) {
			for i := range 10 {
				b.unsent("c1", fmt.Sprint("w-", i))
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := newFakeClock()
			b := adaptiveBudget(clock, DefaultConsumerWriteWindow)
			b.Subscribed()
			reserveAll(b, "c1", 10)
			b.consumers["c1"].rate = 100
			tt.forget(b)
			if b.outstanding != 0 || b.consumers["c1"].drain.writes != 0 {
				t.Errorf("outstanding %d (c1: %d), want none", b.outstanding, b.consumers["c1"].drain.writes)
			}
			clock.add(2 * drainTimeout)
			b.reserve("c1", "next", 0)
			if b.backoffs != 0 || b.consumers["c1"].rate != 100 {
				t.Errorf("after the timeout: %d back-offs, rate %v; want none, 100", b.backoffs, b.consumers["c1"].rate)
			}
		})
	}
}

// What the adaptive budget remembers is bounded: maxTrackedPerConsumer
// writes per consumer, maxTrackedWrites over all, and idle consumers are forgotten
// past maxTrackedConsumers while one with writes outstanding is kept.
func TestAdaptiveBudgetBoundsMemory(t *testing.T) {
	clock := newFakeClock()
	b := adaptiveBudget(clock, 8)
	b.Subscribed()
	for i := range 100 {
		b.reserve("c1", fmt.Sprint("w-", i), time.Hour)
	}
	for i := 100; i < 2*maxTrackedPerConsumer; i++ {
		b.reserve("c1", fmt.Sprint("w-", i), time.Hour)
	}
	if d := b.consumers["c1"].drain; d.writes != maxTrackedPerConsumer || len(d.pending) != maxTrackedPerConsumer {
		t.Errorf("c1 tracks %d writes of %d bundles, want maxTrackedPerConsumer: %d", d.writes, len(d.pending), maxTrackedPerConsumer)
	}

	b.outstanding = maxTrackedWrites
	b.reserve("c2", "w", 0)
	if d := b.consumers["c2"].drain; d.writes != 0 {
		t.Errorf("past maxTrackedWrites c2 tracks %d writes, want none", d.writes)
	}
	b.outstanding = maxTrackedPerConsumer

	clock.add(time.Hour) // every bucket full again; c1 still has writes outstanding
	for i := range maxTrackedConsumers {
		b.consumers[fmt.Sprint("idle-", i)] = &bucket{tokens: b.burst, at: clock.t, rate: b.perSecond}
	}
	b.reserve("new", "w", 0)
	if _, ok := b.consumers["c1"]; !ok || len(b.consumers) != 2 {
		t.Errorf("after eviction: %d consumers, c1 kept %v; want c1 (writes outstanding) and new", len(b.consumers), ok)
	}
}

// The pool's status stream feeds the budget and then the caller's sink;
// without a sink there is no stream to feed.
func TestBudgetFollowsThePoolStatusStream(t *testing.T) {
	clock := newFakeClock()
	b := adaptiveBudget(clock, DefaultConsumerWriteWindow)
	if got := withBudgetStatus(Options{}, b).Status; got != nil {
		t.Errorf("no sink: %v, want none (the budget stays at its floor)", got)
	}
	sink := &recordingSink{}
	opts := withBudgetStatus(Options{Status: sink}, b)
	opts.Status.Subscribed()
	b.reserve("c1", "w", 0)
	opts.Status.Status(work("c1", "w"))
	if sink.subscribed != 1 || sink.events != 1 {
		t.Errorf("sink got %d subscriptions and %d events, want 1 and 1", sink.subscribed, sink.events)
	}
	if s := b.stats(); s.Outstanding != 0 || b.consumers["c1"].drain.drained != 1 {
		t.Errorf("budget: %+v, %d reported; want the write reported", s, b.consumers["c1"].drain.drained)
	}
}

type recordingSink struct{ subscribed, events int }

func (s *recordingSink) Subscribed()                 { s.subscribed++ }
func (s *recordingSink) Status(*workv1.ManifestWork) { s.events++ }

// The aggregate figures the metrics export: writes outstanding (timed out
// ones dropped), the highest rate, the back-offs.
func TestWriteBudgetStats(t *testing.T) {
	clock := newFakeClock()
	b := adaptiveBudget(clock, DefaultConsumerWriteWindow)
	if s := b.stats(); s != (WriteBudgetStats{MaxRate: DefaultConsumerWritesPerSecond}) {
		t.Errorf("empty: %+v", s)
	}
	b.Subscribed()
	reserveAll(b, "c1", 3)
	reserveAll(b, "c2", 2)
	b.consumers["c2"].rate = 90
	b.backoffs = 4
	if s := b.stats(); s != (WriteBudgetStats{Outstanding: 5, MaxRate: 90, Backoffs: 4}) {
		t.Errorf("got %+v", s)
	}
	clock.add(drainTimeout)
	if s := b.stats(); s.Outstanding != 0 {
		t.Errorf("after the timeout: %d outstanding, want none", s.Outstanding)
	}
}
