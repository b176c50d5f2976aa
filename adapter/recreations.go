package adapter

import (
	"sync"
	"time"
)

// RecreationMemory is how long a process remembers a recreation it saw
// pending, and MaxRecreations how many it remembers at most.
const (
	RecreationMemory = time.Hour
	MaxRecreations   = 10_000
)

// recreations is the one piece of history a process keeps about bundles:
// the recreations it saw pending (or started). When Maestro's 404 for the
// old bundle arrives between two events, the next event finds the bundle
// absent and creates it: the decision says create, but that create ends a
// recreation, and the outcome says so (recreate/done, Recreated) when this
// process saw the recreation pending. Nothing in Maestro survives the old
// bundle's deletion, so a process that did not see it pending (another
// replica, or after a restart) reports create/done: the count of
// recreations is never too high, and too low only across processes. It
// never changes a decision or a write.
type recreations struct {
	mu      sync.Mutex
	pending map[BundleKey]time.Time // when last seen pending
}

func newRecreations() *recreations {
	return &recreations{pending: map[BundleKey]time.Time{}}
}

// note records that k's recreation is pending at now. When the memory is
// full of live entries the recreation is not remembered (its end is then
// reported as a create).
func (rs *recreations) note(k BundleKey, now time.Time) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if _, ok := rs.pending[k]; !ok && len(rs.pending) >= MaxRecreations {
		rs.expire(now)
		if len(rs.pending) >= MaxRecreations {
			return
		}
	}
	rs.pending[k] = now
}

// take reports whether k's recreation was seen pending within
// RecreationMemory, and forgets it.
func (rs *recreations) take(k BundleKey, now time.Time) bool {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	seen, ok := rs.pending[k]
	delete(rs.pending, k)
	return ok && now.Sub(seen) <= RecreationMemory
}

func (rs *recreations) forget(k BundleKey) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	delete(rs.pending, k)
}

func (rs *recreations) expire(now time.Time) {
	for k, seen := range rs.pending {
		if now.Sub(seen) > RecreationMemory {
			delete(rs.pending, k)
		}
	}
}

// recall updates the memory with a bundle's outcome and reports a create
// that ends a recreation seen pending as recreate/done.
func (r *eventRun) recall(b *bundle) {
	k := BundleKey{Consumer: b.consumer, Name: b.workName}
	switch o := &b.out; {
	case o.Operation == OpRecreate && (o.State == StatePending || o.State == StateStalled):
		r.p.recreations.note(k, r.now)
	case o.Operation == OpCreate && o.State == StateDone:
		if r.p.recreations.take(k, r.now) {
			r.done(b, OpRecreate)
			r.log.Info("the create ends a recreation seen pending", "bundle", b.res.Name,
				"consumer", b.consumer, "work", b.workName)
		}
	case o.State == StateDone:
		r.p.recreations.forget(k)
	}
}
