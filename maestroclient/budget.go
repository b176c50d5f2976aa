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
	// after a burst: 100 recreations (200 writes) of one consumer take
	// about 9 s per replica (BenchmarkBudgetDrain). With it, two replicas
	// recreating 100 bundles of one real agent at once did not stall
	// Maestro's broker (docs/reliability.md); the rate an agent drains its
	// channel at was not measured, so it is a conservative choice.
	DefaultConsumerWritesPerSecond = 20
)

// WriteBudget bounds the writes (create, update, delete, redelete) this
// process sends for one consumer: at most Burst at once, then PerSecond.
// A write beyond the budget waits for its turn; one that would have to
// wait past its call's deadline fails at once with ErrUnavailable (the
// event is redelivered later) and spends nothing. Reads are not budgeted.
// The zero value selects the defaults.
type WriteBudget struct {
	// PerSecond is the sustained writes per second of one consumer.
	// Default DefaultConsumerWritesPerSecond.
	PerSecond float64
	// Burst is how many writes of one consumer may go out at once.
	// Default DefaultConsumerWriteBurst.
	Burst int
}

// maxTrackedConsumers bounds the per-consumer state: past it, consumers
// whose bucket is full again (idle) are forgotten, which changes nothing
// for them.
const maxTrackedConsumers = 10_000

// budget is a token bucket per consumer, shared by every Client of a Pool.
// Tokens may go negative: a caller that takes one below zero is told how
// long to wait, so waiting writes go out in the order they asked, at the
// budget's rate.
type budget struct {
	perSecond float64
	burst     float64
	now       func() time.Time

	mu        sync.Mutex
	consumers map[string]*bucket
}

type bucket struct {
	tokens float64
	at     time.Time
}

func newBudget(b WriteBudget, now func() time.Time) *budget {
	return &budget{perSecond: b.PerSecond, burst: float64(b.Burst), now: now, consumers: map[string]*bucket{}}
}

// reserve takes one write of consumer and returns how long the caller must
// wait before sending it; ok is false, and nothing is taken, when that
// wait would exceed maxWait.
func (b *budget) reserve(consumer string, maxWait time.Duration) (wait time.Duration, ok bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	k := b.refill(consumer, now)
	if k.tokens >= 1 {
		k.tokens--
		return 0, true
	}
	wait = time.Duration((1 - k.tokens) / b.perSecond * float64(time.Second))
	if wait > maxWait {
		return wait, false
	}
	k.tokens--
	return wait, true
}

// refill returns consumer's bucket with the tokens earned since it was last
// touched, creating a full one for a new consumer.
func (b *budget) refill(consumer string, now time.Time) *bucket {
	k, found := b.consumers[consumer]
	if !found {
		if len(b.consumers) >= maxTrackedConsumers {
			b.forgetIdle(now)
		}
		k = &bucket{tokens: b.burst, at: now}
		b.consumers[consumer] = k
		return k
	}
	if elapsed := now.Sub(k.at); elapsed > 0 {
		k.tokens = min(b.burst, k.tokens+elapsed.Seconds()*b.perSecond)
		k.at = now
	}
	return k
}

// forgetIdle drops the consumers whose bucket has refilled completely.
func (b *budget) forgetIdle(now time.Time) {
	for c, k := range b.consumers {
		if k.tokens+now.Sub(k.at).Seconds()*b.perSecond >= b.burst {
			delete(b.consumers, c)
		}
	}
}

// wait blocks until consumer may send one write, within ctx's deadline.
func (b *budget) wait(ctx context.Context, consumer string) error {
	maxWait := time.Duration(1<<63 - 1)
	if deadline, ok := ctx.Deadline(); ok {
		maxWait = time.Until(deadline)
	}
	d, ok := b.reserve(consumer, maxWait)
	if !ok {
		return fmt.Errorf("%w: write budget of consumer %s spent (next write in %s, %v/s after a burst of %v)",
			adapter.ErrUnavailable, consumer, d.Round(time.Millisecond), b.perSecond, b.burst)
	}
	if d == 0 {
		return nil
	}
	if err := sleep(ctx, d); err != nil {
		return fmt.Errorf("%w: waiting for the write budget of consumer %s: %w", adapter.ErrUnavailable, consumer, err)
	}
	return nil
}
