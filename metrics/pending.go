package metrics

import (
	"container/list"
	"time"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// Bounds of the pending-deletion tracking behind the
// bundles_pending_deletion and bundles_deletion_stalled gauges.
const (
	// MaxTrackedBundles is the most bundles tracked at once; past it the
	// bundle seen longest ago is forgotten.
	MaxTrackedBundles = 100_000
	// PendingTTL forgets a bundle no event has seen for that long (its
	// cluster was deleted, or events for it stopped): a pending bundle is
	// seen again with every event for its resource, about every 10 s.
	PendingTTL = time.Hour
)

// pendingSet tracks bundles last seen with a deletion pending or stalled.
// Every update is O(1): entries sit in a list ordered by when they were
// last seen, so expired entries and the oldest past MaxTrackedBundles are
// dropped from its front, and the counts are kept as entries change.
// Callers hold the Metrics mutex.
type pendingSet struct {
	now     func() time.Time
	max     int
	ttl     time.Duration
	byKey   map[string]*list.Element // of *pendingEntry
	order   list.List                // oldest first
	stalled int
}

type pendingEntry struct {
	key   string
	state adapter.State
	seen  time.Time
	kind  string    // the event's resource kind (Cluster, NodePool)
	since time.Time // when the deletion began, from the outcome's PendingSeconds
}

func newPendingSet() *pendingSet {
	return &pendingSet{now: time.Now, max: MaxTrackedBundles, ttl: PendingTTL, byKey: map[string]*list.Element{}}
}

// set records key as pending or stalled, seen now, for a resource of kind
// whose deletion has been pending for pendingFor.
func (p *pendingSet) set(key string, st adapter.State, kind string, pendingFor time.Duration) {
	now := p.now()
	since := now.Add(-pendingFor)
	if el, ok := p.byKey[key]; ok {
		e := el.Value.(*pendingEntry)
		p.count(e.state, -1)
		e.state, e.seen, e.kind = st, now, kind
		e.since = since
		p.count(st, 1)
		p.order.MoveToBack(el)
	} else {
		p.byKey[key] = p.order.PushBack(&pendingEntry{key: key, state: st, seen: now, kind: kind, since: since})
		p.count(st, 1)
	}
	p.expire(now)
}

// oldest is, per resource kind, the age of the longest-pending deletion
// tracked (entries expired by now are left out). It scans every entry:
// called once per scrape, not per event.
func (p *pendingSet) oldest() map[string]time.Duration {
	now := p.now()
	out := map[string]time.Duration{}
	for el := p.order.Front(); el != nil; el = el.Next() {
		e := el.Value.(*pendingEntry)
		if now.Sub(e.seen) >= p.ttl {
			continue
		}
		if age := now.Sub(e.since); age > out[e.kind] {
			out[e.kind] = age
		}
	}
	return out
}

// remove forgets key (its deletion is done).
func (p *pendingSet) remove(key string) {
	if el, ok := p.byKey[key]; ok {
		p.drop(el)
	}
	p.expire(p.now())
}

// expire drops entries not seen within ttl and the oldest past max.
func (p *pendingSet) expire(now time.Time) {
	for el := p.order.Front(); el != nil; el = p.order.Front() {
		e := el.Value.(*pendingEntry)
		if len(p.byKey) <= p.max && now.Sub(e.seen) < p.ttl {
			return
		}
		p.drop(el)
	}
}

func (p *pendingSet) drop(el *list.Element) {
	e := p.order.Remove(el).(*pendingEntry)
	delete(p.byKey, e.key)
	p.count(e.state, -1)
}

func (p *pendingSet) count(st adapter.State, d int) {
	if st == adapter.StateStalled {
		p.stalled += d
	}
}

// len is the number of bundles tracked.
func (p *pendingSet) len() int { return len(p.byKey) }
