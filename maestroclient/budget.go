package maestroclient

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// Defaults of Options.ConsumerWrites, derived from Maestro's agent channel.
//
// Maestro's gRPC broker hands every spec event (create, update, delete) to
// the consumer's agent through a 100-slot channel, and while one agent's
// channel is full it blocks the broker for every agent (sdk-go
// server/grpc/broker.go: HandleEvent sends under the broker's lock; measured:
// 100 recreations at once on one agent left 60 of 100 clusters stuck after
// 30 rounds). The budget keeps one adapter replica's share of that channel
// small:
const (
	// DefaultConsumerWriteBurst is a quarter of the 100-slot channel: two
	// replicas' full bursts take half of it, and the other half stays free
	// for Maestro's own traffic to the agent (resync responses, re-sent
	// deletes, the other source clients).
	DefaultConsumerWriteBurst = 25
	// DefaultConsumerWritesPerSecond is the sustained rate per consumer
	// after a burst (the fixed budget's rate, the adaptive budget's floor):
	// what the budget falls back to whenever it has no proof that the agent
	// keeps up (no status stream, no agent, or one that does not report).
	// It is set above what hyperfleet-adapter sends to one consumer with
	// its own example config and no budget at all (26.5 creates/s, one
	// event at a time, issue 47's side-by-side: hack/bench.sh --phases
	// side-by-side), so a team switching over never creates slower: it was
	// 20, and creates with no agent ran at 0.77x the anchor's. Against an
	// agent: one real agent drained about 25 creates/s on 2 shared cores
	// (TestRealAgentDrainRate, 2026-12-02), and with the budget lifted
	// (sent at 60/s) it applied all 300 creates in 11.9 s without stalling
	// Maestro; the anchor already sends it about 26/s per replica. Above the
	// floor, the adaptive window (DefaultConsumerWriteWindow) is what keeps
	// pace with a slower agent. 100 recreations (200 writes) of one consumer
	// take about 6 s per replica at the floor (BenchmarkBudgetDrain).
	DefaultConsumerWritesPerSecond = 30
	// DefaultConsumerWriteCeiling is the adaptive budget's highest rate per
	// consumer. Above about 200 creates/s one adapter replica is bound by
	// its own publishers (four source clients at about 50 publishes/s each;
	// 78 creates/s were measured with the budget lifted), so a higher
	// ceiling would not be reached; it stays a bound if that changes.
	DefaultConsumerWriteCeiling = 400
	// DefaultConsumerWriteWindow is how many writes of one consumer the
	// adaptive budget lets be outstanding (sent, not yet reported by the
	// agent) above the floor. Writes go out as reports come back, so the
	// create rate is the window over the round trip (spec to the agent,
	// its status back through Maestro's database to the stream: about
	// 0.5 s under load here): a window of 25 gave 52 creates/s to one
	// consumer at 1,000 clusters, 50 is meant for about 100. It is half of
	// the agent's 100-slot channel at most, and less in practice (most
	// outstanding writes were taken by the agent and await its status);
	// the floor alone already lets burst + PerSecond x drainTimeout (125)
	// be unreported before the rate reacts. One real agent here applied
	// about 25 creates/s (docs/reliability.md): 50 outstanding is two
	// seconds of its work, inside drainTimeout.
	DefaultConsumerWriteWindow = 50
)

// Write budget modes (WriteBudget.Mode).
const (
	// BudgetAdaptive follows what the agent drains; see adaptive.
	BudgetAdaptive = "adaptive"
	// BudgetFixed is a token bucket of Burst, then PerSecond, whatever the
	// agent does.
	BudgetFixed = "fixed"
)

// WriteBudget bounds the writes (create, update, delete, redelete) this
// process sends for one consumer: at most Burst at once, then PerSecond.
// A write beyond the budget waits for its turn; one that would have to
// wait past its call's deadline fails at once with ErrUnavailable (the
// event is redelivered later) and spends nothing. Reads are not budgeted.
//
// In the adaptive mode (the default) PerSecond is the floor: the rate
// rises above it, up to Ceiling, while the status stream proves that the
// agent reports the writes quickly, and falls back when it does not
// (adaptive). Without a status stream (Options.Status nil) the adaptive
// budget stays at its floor: it is the fixed budget. The zero value
// selects the defaults.
type WriteBudget struct {
	// Mode is BudgetAdaptive (default) or BudgetFixed.
	Mode string
	// PerSecond is the sustained writes per second of one consumer (the
	// floor of the adaptive mode). Default DefaultConsumerWritesPerSecond.
	PerSecond float64
	// Burst is how many writes of one consumer may go out at once.
	// Default DefaultConsumerWriteBurst.
	Burst int
	// Ceiling is the adaptive mode's highest rate; at least PerSecond.
	// Default DefaultConsumerWriteCeiling.
	Ceiling float64
	// Window bounds the adaptive mode's outstanding writes of one consumer
	// while its rate is above the floor. Default DefaultConsumerWriteWindow.
	Window int
}

// maxTrackedConsumers bounds the per-consumer state: past it, consumers
// whose bucket is full again and that have no write outstanding (idle)
// are forgotten, which changes nothing for them but their adaptive rate
// (back to the floor).
const maxTrackedConsumers = 10_000

// budget is a token bucket per consumer, shared by every Client of a Pool.
// Tokens may go negative: a caller that takes one below zero is told how
// long to wait, so waiting writes go out in the order they asked, at the
// budget's rate. In the adaptive mode each bucket's rate moves between
// perSecond and ceiling (adaptive.go).
type budget struct {
	perSecond float64 // the fixed rate, or the adaptive floor
	burst     float64
	adaptive  bool
	ceiling   float64
	window    int
	now       func() time.Time

	mu        sync.Mutex
	consumers map[string]*bucket
	// streaming: a status stream is subscribed, so writes are tracked
	// until the agent reports them (adaptive mode only).
	streaming   bool
	outstanding int    // writes tracked, over every consumer
	backoffs    uint64 // rate decreases, over every consumer
}

type bucket struct {
	tokens float64
	at     time.Time
	rate   float64 // writes per second now: perSecond when fixed
	drain  drainState
}

func newBudget(b WriteBudget, now func() time.Time) *budget {
	return &budget{perSecond: b.PerSecond, burst: float64(b.Burst), now: now, consumers: map[string]*bucket{},
		adaptive: b.Mode != BudgetFixed, ceiling: max(b.Ceiling, b.PerSecond), window: b.Window}
}

// grant is what reserve decided for one write.
type grant struct {
	// wait is how long the caller must wait before sending it.
	wait time.Duration
	// ok is false when that wait would exceed the caller's maxWait, or
	// the window is full: nothing was taken.
	ok bool
	// full, when not nil, says the consumer's window is full: it is
	// closed when a write is drained or dropped, and wait is then the
	// time until the oldest outstanding write times out.
	full <-chan struct{}
}

// reserve takes one write of bundle consumer/name and says how long the
// caller must wait before sending it; nothing is taken when that wait
// would exceed maxWait or the window is full.
func (b *budget) reserve(consumer, name string, maxWait time.Duration) grant {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	k := b.refill(consumer, now)
	if b.tracking() {
		b.adjust(k, now)
		if full, wake := b.windowFull(k, now); full != nil {
			return grant{wait: wake, full: full}
		}
	}
	if k.tokens >= 1 {
		k.tokens--
		b.track(k, name, now)
		return grant{ok: true}
	}
	k.drain.limited = true // the rate holds a write back
	wait := time.Duration((1 - k.tokens) / k.rate * float64(time.Second))
	if wait > maxWait {
		return grant{wait: wait}
	}
	k.tokens--
	b.track(k, name, now)
	return grant{wait: wait, ok: true}
}

// refill returns consumer's bucket with the tokens earned since it was last
// touched, creating a full one for a new consumer.
func (b *budget) refill(consumer string, now time.Time) *bucket {
	k, found := b.consumers[consumer]
	if !found {
		if len(b.consumers) >= maxTrackedConsumers {
			b.forgetIdle(now)
		}
		k = &bucket{tokens: b.burst, at: now, rate: b.perSecond, drain: drainState{since: now}}
		b.consumers[consumer] = k
		return k
	}
	if elapsed := now.Sub(k.at); elapsed > 0 {
		k.tokens = min(b.burst, k.tokens+elapsed.Seconds()*k.rate)
		k.at = now
	}
	return k
}

// forgetIdle drops the consumers whose bucket has refilled completely and
// that have no write outstanding.
func (b *budget) forgetIdle(now time.Time) {
	for c, k := range b.consumers {
		if k.tokens+now.Sub(k.at).Seconds()*k.rate >= b.burst && k.drain.writes == 0 {
			delete(b.consumers, c)
		}
	}
}

// wait blocks until consumer may send one write of bundle name, within
// ctx's deadline. Its error wraps ErrUnavailable: the budget is spent
// past the deadline (nothing was sent), or the consumer's window stayed
// full until the deadline.
func (b *budget) wait(ctx context.Context, consumer, name string) error {
	for {
		maxWait := time.Duration(1<<63 - 1)
		if deadline, ok := ctx.Deadline(); ok {
			maxWait = time.Until(deadline)
		}
		g := b.reserve(consumer, name, maxWait)
		if g.full != nil {
			if err := waitFreed(ctx, g.full, g.wait); err != nil {
				return waitEnded(fmt.Sprintf("%d writes of consumer %s outstanding, none reported by its agent",
					b.window, consumer), err)
			}
			continue
		}
		if !g.ok {
			return fmt.Errorf("%w: write budget of consumer %s spent (next write in %s, %v/s after a burst of %v)",
				adapter.ErrUnavailable, consumer, g.wait.Round(time.Millisecond), b.perSecond, b.burst)
		}
		if g.wait == 0 {
			return nil
		}
		if err := sleep(ctx, g.wait); err != nil {
			b.unsent(consumer, name)
			return waitEnded("waiting for the write budget of consumer "+consumer, err)
		}
		return nil
	}
}

// waitFreed waits until freed is closed or d has passed, within ctx.
func waitFreed(ctx context.Context, freed <-chan struct{}, d time.Duration) error {
	t := time.NewTimer(max(d, time.Millisecond))
	defer t.Stop()
	select {
	case <-freed:
	case <-t.C:
	case <-ctx.Done():
		return ctx.Err()
	}
	return nil
}
