package view

import (
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/bundles"
)

// Tombstones are the view's observed history of deletions: when the stream
// carries the agent's confirmation that a bundle is deleted (condition
// Deleted), the view keeps the deleted bundle's fingerprint annotation and
// when the confirmation arrived, so that a replica that did not delete the
// bundle itself can tell that the create which follows Maestro's 404 ends a
// recreation (adapter.Tombstones). Every replica subscribes to the whole
// source, so every replica keeps every tombstone.
//
// A tombstone is a name, a fingerprint and a time (about 150 bytes), no
// bundle. They are bounded as the adapter's own memory of recreations is:
// at most adapter.MaxRecreations, none older than adapter.RecreationMemory
// (older ones are not returned, and are evicted when the set is full; a full
// set of live tombstones records no new one). A tombstone is dropped when
// the bundle exists again (the stream carries a status of it that is
// neither deleting nor deleted, or this process created it) and on every
// (re)subscription, with the rest of the view: the stream may have lost
// what happened meanwhile. A confirmation without the fingerprint annotation
// makes no tombstone: it names nothing the adapter wrote.
//
// A read does not drop a tombstone: a read that began before the deletion
// may return after its confirmation, still showing the old bundle.

var _ adapter.Tombstones = (*View)(nil)

type tombstone struct {
	fingerprint string
	confirmed   time.Time
}

// Tombstone returns the fingerprint annotation of the last bundle
// consumer/name whose deletion the stream confirmed, and when the
// confirmation arrived (the view's clock), if within
// adapter.RecreationMemory and not dropped since.
func (v *View) Tombstone(consumer, name string) (fingerprint string, confirmed time.Time, ok bool) {
	v.tombMu.Lock()
	defer v.tombMu.Unlock()
	t, ok := v.tombstones[keyOf(consumer, name)]
	if !ok || v.clock().Sub(t.confirmed) > adapter.RecreationMemory {
		return "", time.Time{}, false
	}
	return t.fingerprint, t.confirmed, true
}

// TombstoneCount is the number of tombstones held, expired ones included.
func (v *View) TombstoneCount() int {
	v.tombMu.Lock()
	defer v.tombMu.Unlock()
	return len(v.tombstones)
}

// history applies a stream event to the tombstones: a Deleted confirmation
// records one, a status of a bundle neither deleting nor deleted drops the
// bundle's.
func (v *View) history(k key, work *workv1.ManifestWork) {
	switch {
	case meta.IsStatusConditionTrue(work.Status.Conditions, conditionDeleted):
		fp := work.Annotations[bundles.FingerprintAnnotation]
		if !bundles.IsFingerprint(fp) {
			return // none, or not one this adapter wrote: nothing to keep
		}
		v.bury(k, fp, v.clock())
	case !deleting(work):
		v.unbury(k)
	}
}

// bury records a tombstone; strings are cloned so that a tombstone holds
// nothing of the event it came from.
func (v *View) bury(k key, fingerprint string, now time.Time) {
	v.tombMu.Lock()
	defer v.tombMu.Unlock()
	if _, ok := v.tombstones[k]; !ok && len(v.tombstones) >= adapter.MaxRecreations {
		for old, t := range v.tombstones {
			if now.Sub(t.confirmed) > adapter.RecreationMemory {
				delete(v.tombstones, old)
			}
		}
		if len(v.tombstones) >= adapter.MaxRecreations {
			return
		}
	}
	k = key{k.consumer, strings.Clone(k.name)}
	v.tombstones[k] = tombstone{fingerprint: strings.Clone(fingerprint), confirmed: now}
}

// unbury drops the tombstone of a bundle that exists again.
func (v *View) unbury(k key) {
	v.tombMu.Lock()
	defer v.tombMu.Unlock()
	delete(v.tombstones, k)
}
