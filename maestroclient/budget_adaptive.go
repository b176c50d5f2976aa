package maestroclient

import (
	"time"

	workv1 "open-cluster-management.io/api/work/v1"
)

// The adaptive budget (WriteBudget.Mode BudgetAdaptive) follows what the
// consumer's agent drains, as the status stream shows it:
//
//   - A write (create, update, delete, redelete) of bundle consumer/name is
//     outstanding from the moment it takes its token until the stream
//     brings a status event of that bundle (the agent reports only after
//     it received the spec event, so its channel slot is free again), or
//     until drainTimeout passes: then it is dropped and counts as the
//     agent being behind. A write that fails before it is sent is
//     forgotten.
//   - Every adjustInterval (looked at when the consumer writes) the rate
//     moves: back to the floor PerSecond when a write timed out (an agent
//     that leaves a write unreported that long is far behind, or gone: start
//     again from what is known to be safe); raised by increaseFactor, never above
//     Ceiling, when writes were reported, none timed out, and a write had
//     to wait for a token (the rate, not the agent, was what held writes
//     back: an idle consumer's rate does not creep up).
//   - While the rate is above the floor, at most Window writes are
//     outstanding: a write beyond it waits for a report (or the oldest
//     write's timeout), so a burst never puts more than Window writes of
//     one replica into the agent's channel. The window, not the rate, is
//     what keeps pace with a slow agent: writes go out as reports come
//     back (as fast as the agent applies, Window ahead of it at most), and
//     the rate falls only when a write goes unreported for drainTimeout.
//     At the floor the budget is the fixed one (burst, then PerSecond),
//     whatever is outstanding.
//   - Without a status stream nothing is tracked and nothing is reported,
//     so the rate never leaves the floor. A (re)subscription forgets every
//     outstanding write (events may have been lost, and a write whose
//     report was lost must not count as the agent being behind); rates are
//     kept, the next interval corrects them. A stream that goes down
//     without it shows as timeouts, which bring the rate to the floor.
//
// Memory: at most maxTrackedPerConsumer writes tracked per consumer (more
// are sent untracked, at the floor only), maxTrackedWrites over every
// consumer, and
// maxTrackedConsumers consumers.
const (
	// adjustInterval is how often a consumer's rate moves: the stream's
	// round trip (write, agent applies, status back) is tens of
	// milliseconds, so half a second holds several round trips, and
	// ×1.5 per interval climbs from the floor (20/s) to the ceiling
	// (400/s) in about 4 s.
	adjustInterval = 500 * time.Millisecond
	// increaseFactor is the rise per interval while the agent keeps up.
	increaseFactor = 1.5
	// drainTimeout is how long a write may stay unreported before the
	// agent counts as behind: at the floor the agent's whole 100-slot
	// channel drains in 5 s; a report later than that means the agent (or
	// the stream) does not keep up with even the floor.
	drainTimeout = 5 * time.Second
	// maxTrackedWrites bounds the writes tracked over every consumer
	// (each a map entry of a few dozen bytes); past it, writes are sent
	// untracked.
	maxTrackedWrites = 1 << 16
	// maxTrackedPerConsumer bounds one consumer's tracked writes. Writes
	// sent at the floor are tracked too (the window is not enforced
	// there), so that when the rate rises the window counts what the agent
	// still has from before: at the floor at most burst + PerSecond x
	// drainTimeout (125 by default) can be outstanding before they expire.
	maxTrackedPerConsumer = 256
)

// drainState is a consumer's adaptive state.
type drainState struct {
	// pending holds the writes not yet reported, by bundle name.
	pending map[string]pendingWrite
	writes  int       // sum of pending's counts
	since   time.Time // the current interval began
	limited bool      // a write of the interval waited for a token
	drained int       // writes reported in the interval
	behind  bool      // a write of the interval timed out
	// freed is closed when writes falls; nil until a write waits on a
	// full window.
	freed chan struct{}
}

// pendingWrite is the writes of one bundle not yet reported.
type pendingWrite struct {
	n     int
	first time.Time // when the oldest was reserved
}

// tracking says whether writes are tracked: adaptive mode with a stream.
func (b *budget) tracking() bool { return b.adaptive && b.streaming }

// track records one write of bundle name, reserved at now.
func (b *budget) track(k *bucket, name string, now time.Time) {
	d := &k.drain
	if !b.tracking() || d.writes >= maxTrackedPerConsumer || b.outstanding >= maxTrackedWrites {
		return
	}
	if d.pending == nil {
		d.pending = map[string]pendingWrite{}
	}
	p, ok := d.pending[name]
	if !ok {
		p.first = now
	}
	p.n++
	d.pending[name] = p
	d.writes++
	b.outstanding++
}

// forget drops n writes of bundle name from k's pending writes; reported
// says the agent reported them.
func (b *budget) forget(k *bucket, name string, n int, reported bool) {
	d := &k.drain
	p, ok := d.pending[name]
	if !ok {
		return
	}
	n = min(n, p.n)
	if p.n -= n; p.n == 0 {
		delete(d.pending, name)
	} else {
		d.pending[name] = p
	}
	d.writes -= n
	b.outstanding -= n
	if reported {
		d.drained += n
	}
	d.wake()
}

// wake lets the writes waiting on a full window look again.
func (d *drainState) wake() {
	if d.freed != nil {
		close(d.freed)
		d.freed = nil
	}
}

// expire drops k's writes reserved drainTimeout or longer before now; if
// any, the agent is behind and k's rate drops to the floor at once (the
// dropped writes are still in the agent's queue: the window must not make
// room for more above the floor).
func (b *budget) expire(k *bucket, now time.Time) {
	d := &k.drain
	for name, p := range d.pending {
		if now.Sub(p.first) >= drainTimeout {
			d.behind = true
			b.forget(k, name, p.n, false)
		}
	}
	if d.behind && k.rate > b.perSecond {
		k.rate = b.perSecond
		b.backoffs++
	}
}

// adjust moves k's rate once an interval has passed; see the algorithm
// above. The caller has refilled k at now.
func (b *budget) adjust(k *bucket, now time.Time) {
	d := &k.drain
	if now.Sub(d.since) < adjustInterval {
		return
	}
	b.expire(k, now)
	switch {
	case d.behind: // expire has brought the rate to the floor
	case d.limited && d.drained > 0:
		k.rate = min(b.ceiling, k.rate*increaseFactor)
	}
	d.since, d.limited, d.drained, d.behind = now, false, 0, false
}

// windowFull says whether k's window holds writes back: then it returns
// the channel closed when a write is reported and the time until the
// oldest write times out.
func (b *budget) windowFull(k *bucket, now time.Time) (<-chan struct{}, time.Duration) {
	d := &k.drain
	if k.rate <= b.perSecond || d.writes < b.window {
		return nil, 0
	}
	b.expire(k, now)
	if d.writes < b.window {
		return nil, 0
	}
	oldest := now
	for _, p := range d.pending {
		if p.first.Before(oldest) {
			oldest = p.first
		}
	}
	if d.freed == nil {
		d.freed = make(chan struct{})
	}
	return d.freed, oldest.Add(drainTimeout).Sub(now)
}

// unsent forgets one write of consumer/name that was not sent (its wait
// or its call failed before Maestro took it).
func (b *budget) unsent(consumer, name string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if k, ok := b.consumers[consumer]; ok {
		b.forget(k, name, 1, false)
	}
}

// Status is one event of the status stream: every write of its bundle
// outstanding is reported. An event without the bundle's name is ignored.
func (b *budget) Status(work *workv1.ManifestWork) {
	if work == nil || work.Name == "" || work.Name == string(work.UID) {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if k, ok := b.consumers[work.Namespace]; ok {
		b.forget(k, work.Name, k.drain.pending[work.Name].n, true)
	}
}

// Subscribed starts tracking writes (adaptive mode) and forgets every
// outstanding write: events may have been lost before it.
func (b *budget) Subscribed() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.adaptive {
		return
	}
	b.streaming = true
	for _, k := range b.consumers {
		clear(k.drain.pending)
		k.drain.writes = 0
		k.drain.wake()
	}
	b.outstanding = 0
}
