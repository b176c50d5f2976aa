package view

import (
	"strings"

	"k8s.io/apimachinery/pkg/types"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/bundles"
)

// Subscribed is called when the status stream is (re)subscribed: status
// events may have been lost before, so every entry is dropped, reads in
// flight store nothing, and the view trusts only what is read from now on.
// Before the first call (unless Options.Synced) Lookup misses everything.
func (v *View) Subscribed() {
	v.mu.Lock()
	defer v.mu.Unlock()
	clear(v.entries)
	clear(v.pending)
	v.seq++
	v.dropped = v.seq
	v.synced = true
	v.tombMu.Lock()
	clear(v.tombstones)
	v.tombMu.Unlock()
}

// Status applies one event of the source's status stream, as sdk-go's
// source codec decodes it: name and namespace from the work metadata
// Maestro attaches, generation = Maestro's resource version, annotations
// and spec as last written, status as the agent reported. An entry whose
// generation and fingerprint annotation the event matches takes its
// status; one the event shows deleting, deleted or written by someone else
// is forgotten. An event for a bundle without an entry makes one only when
// it is the first status of this process's own create (its write id,
// create.go); any other leaves a marker, as a forget does, so that a
// read or List of it in flight does not store what it read: Maestro may
// have answered it before this status reached it, and the entry would then
// miss a status the stream already brought, for max age (seen in a test
// only: TestLookup "read in flight across a stream status"). It also keeps
// the bundle's tombstone (tombstone.go): a Deleted confirmation records
// one, any other status that is not deleting drops it. An event without
// the bundle's name (no work metadata) forgets every entry of that uid.
func (v *View) Status(work *workv1.ManifestWork) {
	if work == nil {
		return
	}
	if work.Namespace == "" || work.Name == "" || work.Name == string(work.UID) {
		v.mu.Lock()
		defer v.mu.Unlock()
		v.forgetUID(work.UID)
		return
	}
	k := keyOf(work.Namespace, strings.Clone(work.Name)) // a key holds nothing of the event
	v.history(k, work)
	v.mu.RLock()
	e, ok := v.entries[k]
	own := v.ownCreate(k, work)
	v.mu.RUnlock()
	if !ok || e.gone {
		if own {
			v.fromOwnCreate(k, e, work)
			return
		}
		// A marker, whatever a read stored meanwhile (it may predate
		// this status): reads in flight store nothing.
		v.mu.Lock()
		v.drop(k, work)
		v.mu.Unlock()
		return
	}
	next, fresh := v.withStatus(*e, work)
	v.mu.Lock()
	defer v.mu.Unlock()
	if cur, still := v.entries[k]; !still || cur.seq != e.seq {
		// Changed meanwhile: the status may be older than what changed it.
		v.drop(k, work)
		return
	}
	if !fresh {
		v.drop(k, work)
		return
	}
	if own {
		delete(v.pending, k) // the entry (a read of it) now follows its statuses
	}
	v.seq++
	next.seq = v.seq
	v.entries[k] = &next
}

// fromOwnCreate makes k's entry from the first status of this process's
// create of it (create.go); before is what k held when the status was
// checked (nil or a marker). Anything that changed k meanwhile wins: the
// status then leaves a marker.
func (v *View) fromOwnCreate(k key, before *entry, work *workv1.ManifestWork) {
	next, packed := v.newEntry(asRead(work), v.since(v.clock()))
	v.mu.Lock()
	defer v.mu.Unlock()
	if cur := v.entries[k]; cur != before || !packed || !v.ownCreate(k, work) {
		v.drop(k, work)
		return
	}
	delete(v.pending, k)
	v.seq++
	next.seq = v.seq
	v.entries[k] = &next
	v.changed(next.read)
}

// drop leaves a marker for a stream status that makes or updates no entry:
// it forgets k, but keeps k's pending create when the status carries
// another write id (an earlier bundle of the name, or another writer's:
// create.go). Caller holds v.mu.
func (v *View) drop(k key, work *workv1.ManifestWork) {
	if p, ok := v.pending[k]; ok && work.Annotations[bundles.WriteIDAnnotation] != p.id {
		v.mark(k)
		return
	}
	v.forget(k)
}

// withStatus is e with the status of a stream event; false when the event
// shows the bundle deleting, written by someone else, or e cannot be
// repacked.
func (v *View) withStatus(e entry, work *workv1.ManifestWork) (entry, bool) {
	if deleting(work) || !e.sameSpec(work) {
		return entry{}, false
	}
	w, err := v.unpack(e.packed)
	if err != nil {
		return entry{}, false
	}
	work.Status.DeepCopyInto(&w.Status)
	next, ok := v.newEntry(w, e.read)
	return next, ok
}

func (e entry) sameSpec(got *workv1.ManifestWork) bool {
	return e.generation == got.Generation && e.spec == specSum(got)
}

func (v *View) forgetUID(uid types.UID) {
	sum := uidOf(uid)
	for k, e := range v.entries {
		if !e.gone && e.uid == sum {
			v.forget(k)
		}
	}
}
