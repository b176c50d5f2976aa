package view

import (
	"slices"
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
	v.store(t, keyOf(consumer, strings.Clone(name)), work, v.since(v.clock()))
}

// store is Observe of a present bundle, read at read (since the epoch).
func (v *View) store(t Token, k key, work *workv1.ManifestWork, read time.Duration) {
	e, ok := v.newEntry(work, read)
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
	v.changed(v.since(v.clock()))
}

// changed counts one change of the entries (a stored read or a marker) and
// sweeps every sweepEvery changes, and at the first change markerTTL after
// the last sweep. Caller holds v.mu.
func (v *View) changed(now time.Duration) {
	if v.changes++; v.changes%sweepEvery == 0 || now-v.swept >= markerTTL {
		v.sweep(now)
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
// no entry. It drops k's pending create too (create.go): after a forget the
// view learns the bundle from a read. Caller holds v.mu.
func (v *View) forget(k key) {
	delete(v.pending, k)
	v.mark(k)
}

// mark is forget without dropping k's pending create: for a stream status
// of another bundle of k's name (create.go). Caller holds v.mu.
func (v *View) mark(k key) {
	v.seq++
	now := v.since(v.clock())
	v.entries[k] = &entry{gone: true, seq: v.seq, read: now}
	v.changed(now)
}

// sweepEvery is how many changes (stored reads and markers) pass between
// two sweeps.
const sweepEvery = 1024

// sweep drops entries past MaxAge and markers past markerTTL (or MaxAge,
// if shorter): Lookup misses them anyway, and a bundle never read again
// (its cluster gone without this adapter's delete) would otherwise stay in
// memory. Past maxMarkers markers, the oldest go too. A read still in
// flight from before a swept marker must not store either, so dropped
// moves up to the marker's seq. Caller holds v.mu.
func (v *View) sweep(now time.Duration) {
	v.swept = now
	for k, p := range v.pending {
		if now-p.at > v.maxAge {
			delete(v.pending, k)
		}
	}
	ttl := min(markerTTL, v.maxAge)
	var markers []uint64
	for k, e := range v.entries {
		switch {
		case e.gone && now-e.read > ttl, !e.gone && now-e.read > v.maxAge:
			delete(v.entries, k)
			if e.gone {
				v.dropped = max(v.dropped, e.seq)
			}
		case e.gone:
			markers = append(markers, e.seq)
		}
	}
	if len(markers) <= maxMarkers {
		return
	}
	slices.Sort(markers)
	cut := markers[len(markers)-maxMarkers-1] // the newest marker to go
	for k, e := range v.entries {
		if e.gone && e.seq <= cut {
			delete(v.entries, k)
		}
	}
	v.dropped = max(v.dropped, cut)
}

// Markers (forget) need to live only as long as a read that began before
// them can still be in flight, and expiring one early is always safe:
// sweeping a marker moves dropped up to its seq, so every read that began
// before it stores nothing (a miss, never a stale entry). They expire
// after markerTTL, and past maxMarkers the oldest go, so 404s and writes
// with no stored read in between hold bounded memory.
const (
	markerTTL  = 30 * time.Second
	maxMarkers = 10_000
)
