package view

import (
	"strings"
	"time"

	workv1 "open-cluster-management.io/api/work/v1"
)

// Token marks when a read began; see Begin and Observe.
type Token uint64

// Begin is called before a read of Maestro; its token goes to Observe.
func (v *View) Begin() Token {
	v.mu.RLock()
	defer v.mu.RUnlock()
	return Token(v.seq)
}

// Observe stores what Maestro answered to a read that began at t: the
// bundle, or nil for a 404 (the entry is forgotten). Nothing is stored when
// the view forgot this bundle or was dropped after t, or the entry changed
// after t: the answer may be older than what the view learned since.
func (v *View) Observe(t Token, consumer, name string, work *workv1.ManifestWork) {
	if work == nil {
		v.Forget(consumer, name)
		return
	}
	k := keyOf(consumer, strings.Clone(name))
	e, ok := v.newEntry(work, v.since(v.clock()))
	v.mu.Lock()
	defer v.mu.Unlock()
	if !ok {
		v.forget(k)
		return
	}
	if cur := v.entries[k]; uint64(t) < v.dropped || (cur != nil && cur.seq > uint64(t)) {
		return
	}
	v.seq++
	e.seq = v.seq
	v.entries[k] = &e
	if v.observed++; v.observed%sweepEvery == 0 {
		v.sweep(e.read)
	}
}

// Forget drops the entry of one bundle (after a write, or a stream event
// the view cannot apply); reads of it in flight will not store theirs,
// reads of other bundles still do.
func (v *View) Forget(consumer, name string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.forget(keyOf(consumer, strings.Clone(name)))
}

// forget replaces the entry of k with a marker carrying the new seq, which
// Observe compares a read's token with; Lookup and Status treat a marker as
// no entry. Caller holds v.mu.
func (v *View) forget(k key) {
	v.seq++
	v.entries[k] = &entry{gone: true, seq: v.seq, read: v.since(v.clock())}
}

// sweepEvery is how many stored reads pass between two sweeps.
const sweepEvery = 1024

// sweep drops entries and markers past MaxAge: Lookup misses them anyway,
// and a bundle never read again (its cluster gone without this adapter's
// delete) would otherwise stay in memory. A read still in flight from
// before a swept marker must not store either, so dropped moves up to the
// marker's seq. Caller holds v.mu.
func (v *View) sweep(now time.Duration) {
	for k, e := range v.entries {
		if now-e.read > v.maxAge {
			delete(v.entries, k)
			if e.gone {
				v.dropped = max(v.dropped, e.seq)
			}
		}
	}
}
