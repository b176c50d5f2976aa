package adapter

import (
	"sync"
	"time"

	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/bundles"
)

// RecreationMemory is how long a process remembers a recreation it saw
// pending, and MaxRecreations how many it remembers at most. The view's
// tombstones (maestroclient/view) have the same bounds.
const (
	RecreationMemory = time.Hour
	MaxRecreations   = 10_000
)

// Tombstones is a BundleView that also keeps the observed history of
// deletions: the deletions of this source's bundles that the agent
// confirmed on Maestro's status stream, which every replica receives
// (maestroclient/view implements it). Tombstone returns the
// FingerprintAnnotation of the last bundle consumer/name whose deletion was
// confirmed, and when the confirmation arrived; ok false when none is kept.
type Tombstones interface {
	Tombstone(consumer, name string) (fingerprint string, confirmed time.Time, ok bool)
}

// recreations is the one piece of history a process keeps about bundles:
// the recreations it saw pending (or started), with the fingerprint of the
// bundle being deleted. When Maestro's 404 for the old bundle arrives
// between two events, the next event finds the bundle absent and creates
// it: the decision says create, but that create ends a recreation, and the
// outcome says so (recreate/done, Recreated) when this process saw the
// recreation pending, or when the view's tombstones (Tombstones) show that
// a bundle of that name with another fingerprint was deleted within
// RecreationMemory (endsRecreation). Without a view, a process that did not
// see it pending (another replica, or after a restart) reports create/done:
// the count of recreations is too low only across processes. It never
// changes a decision, and a write only by the ReplacedAnnotation the create
// carries.
type recreations struct {
	mu      sync.Mutex
	pending map[BundleKey]seenPending
}

type seenPending struct {
	at          time.Time // when last seen pending
	fingerprint string    // of the bundle being deleted; "" unknown
}

func newRecreations() *recreations {
	return &recreations{pending: map[BundleKey]seenPending{}}
}

// note records that k's recreation is pending at now, deleting the bundle
// of fingerprint fp ("" when not observed: an earlier one is kept). When
// the memory is full of live entries the recreation is not remembered (its
// end is then reported as a create, unless the view tells otherwise).
func (rs *recreations) note(k BundleKey, now time.Time, fp string) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	prev, ok := rs.pending[k]
	if !ok && len(rs.pending) >= MaxRecreations {
		rs.expire(now)
		if len(rs.pending) >= MaxRecreations {
			return
		}
	}
	if fp == "" {
		fp = prev.fingerprint
	}
	rs.pending[k] = seenPending{at: now, fingerprint: fp}
}

// seen reports whether k's recreation was seen pending within
// RecreationMemory, and the fingerprint of the bundle it deleted.
func (rs *recreations) seen(k BundleKey, now time.Time) (fingerprint string, ok bool) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	s, ok := rs.pending[k]
	if !ok || now.Sub(s.at) > RecreationMemory {
		return "", false
	}
	return s.fingerprint, true
}

func (rs *recreations) forget(k BundleKey) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	delete(rs.pending, k)
}

func (rs *recreations) expire(now time.Time) {
	for k, s := range rs.pending {
		if now.Sub(s.at) > RecreationMemory {
			delete(rs.pending, k)
		}
	}
}

// endsRecreation reports whether a create of b decided on the absent row
// (after Maestro's own 404; the view never answers absent) ends a
// recreation, and the fingerprint of the bundle it replaces ("" unknown):
// this process saw the recreation pending, or the view keeps a tombstone
// of a bundle of that name whose fingerprint differs from the desired one
// (a recreation only ever replaces a bundle of another fingerprint; a
// bundle deleted otherwise and created again unchanged stays a create)
// confirmed within RecreationMemory. b is rendered.
func (r *eventRun) endsRecreation(b *bundle) (replaced string, ends bool) {
	rk, ok := b.t.(recreationKeyed)
	if !ok {
		return "", false
	}
	fp, seen := r.p.recreations.seen(rk.recreationKey(b), r.now)
	if seen && fp != "" {
		return fp, true
	}
	if ts, ok := b.t.(tombstoned); ok {
		old, confirmed, found := ts.tombstone(r, b)
		if found && old != "" && old != b.fingerprint && r.now.Sub(confirmed) <= RecreationMemory {
			return old, true
		}
	}
	return "", seen
}

// withReplaced is work with ReplacedAnnotation naming fp, a copy; work
// itself when fp is not a fingerprint (bundles.IsFingerprint; "" unknown).
func withReplaced(work *workv1.ManifestWork, fp string) *workv1.ManifestWork {
	if !bundles.IsFingerprint(fp) {
		return work // unknown, or read back in a form the adapter never writes
	}
	return bundles.WithAnnotation(work, bundles.ReplacedAnnotation, fp)
}

// recall updates the memory with a bundle's outcome: a recreation pending
// or stalled is noted, any other outcome done forgets it.
func (r *eventRun) recall(b *bundle) {
	rk, ok := b.t.(recreationKeyed)
	if !ok {
		return
	}
	k := rk.recreationKey(b)
	switch o := &b.out; {
	case o.Operation == OpRecreate && (o.State == StatePending || o.State == StateStalled):
		r.p.recreations.note(k, r.now, b.obs.fingerprint())
	case o.State == StateDone:
		r.p.recreations.forget(k)
	}
}
