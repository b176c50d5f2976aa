package view

import (
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
	v.seq++
	v.dropped = v.seq
	v.synced = true
}

// Status applies one event of the source's status stream, as sdk-go's
// source codec decodes it: name and namespace from the work metadata
// Maestro attaches, generation = Maestro's resource version, annotations
// and spec as last written, status as the agent reported. An entry whose
// generation and fingerprint annotation the event matches takes its
// status; one the event shows deleting, deleted or written by someone else
// is forgotten. An event for a bundle without an entry is ignored: entries
// come from reads only. An event without the bundle's name (no work
// metadata) forgets every entry of that uid.
func (v *View) Status(work *workv1.ManifestWork) {
	if work == nil {
		return
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if work.Namespace == "" || work.Name == "" || work.Name == string(work.UID) {
		v.forgetUID(string(work.UID))
		return
	}
	k := key{work.Namespace, work.Name}
	e, ok := v.entries[k]
	switch {
	case !ok:
	case deleting(work) || !sameSpec(e.work, work):
		v.forget(k)
	default:
		w := *e.work
		work.Status.DeepCopyInto(&w.Status)
		v.seq++
		v.entries[k] = entry{work: &w, read: e.read, seq: v.seq}
	}
}

func sameSpec(have, got *workv1.ManifestWork) bool {
	return have.Generation == got.Generation && have.UID == got.UID &&
		have.Annotations[bundles.FingerprintAnnotation] == got.Annotations[bundles.FingerprintAnnotation]
}

func (v *View) forgetUID(uid string) {
	for k, e := range v.entries {
		if string(e.work.UID) == uid {
			v.forget(k)
		}
	}
}
