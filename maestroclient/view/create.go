package view

import (
	"crypto/rand"
	"maps"
	"strconv"
	"time"

	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/bundles"
)

// The round after a create (issue 47). A bundle this process creates is
// sent with a write id of its own (bundles.WriteIDAnnotation), and the view
// remembers it as pending. The agent's first status on the stream that
// echoes that write id makes the bundle's entry, so the next event of the
// bundle needs no read. Nothing else the stream carries makes an entry:
//
//   - A status with another write id, or none, is of another bundle of the
//     same name: an earlier one (deleted and created again keeps the uid,
//     the name and generation 1; its last statuses may reach this process
//     after the create) or one another writer created. It leaves a marker
//     as before and keeps the pending write id, which still names the only
//     statuses that describe what this process created.
//   - Any forget of the bundle (this process's update or delete, a failed
//     create, a deletion the stream shows, a read's 404) and every
//     (re)subscription drop the pending write id: after them the view
//     learns the bundle from a read again. So does age: a pending write id
//     older than MaxAge is swept.
//
// The entry is the stream's bundle as a read returns it (asRead): the
// stream and a read differ in two fields only, the resourceVersion (the
// agent's, "0", where a read has Maestro's version, which the stream
// carries as the generation) and sdk-go's sequence-id annotation, which
// a read does not show (maestroclient TestStreamCarriesTheReadSaveTwoFields
// with the simulated agent, and e2e TestStreamEntryIsTheRead with the real
// one). It counts as read when the status arrived.
//
// The write id is part of the entry's spec digest (specSum), so a late
// status of an earlier bundle of the same name no longer passes for the
// entry's own: it forgets the entry instead of lending it its conditions.

// pendingCreate is a create this process sent: its write id and when.
type pendingCreate struct {
	id string
	at time.Duration // since the view's epoch
}

// maxPending bounds the pending write ids: past it a create is sent with
// its write id but not remembered (its next event reads, as before).
const maxPending = 50_000

// sequenceIDAnnotation is the annotation sdk-go adds to what the stream
// carries (a read never shows it).
const sequenceIDAnnotation = "cloudevents.open-cluster-management.io/sequenceid"

// newWriteID is 128 random bits as 32 hex digits.
func newWriteID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	const hex = "0123456789abcdef"
	out := make([]byte, 32)
	for i, c := range b {
		out[2*i], out[2*i+1] = hex[c>>4], hex[c&15]
	}
	return string(out)
}

// creating is called before this process sends the create of k: it
// forgets k (reads in flight store nothing) and, unless too many are
// pending, remembers the create's write id, which it returns.
func (v *View) creating(k key) string {
	id := newWriteID()
	v.mu.Lock()
	defer v.mu.Unlock()
	v.forget(k)
	if len(v.pending) < maxPending {
		v.pending[k] = pendingCreate{id: id, at: v.since(v.clock())}
	}
	return id
}

// ownCreate reports whether a stream status of k that has no entry to
// update may make one: it echoes the write id of this process's pending
// create of k and shows the bundle neither deleting nor deleted. Caller
// holds v.mu (read or write).
func (v *View) ownCreate(k key, work *workv1.ManifestWork) bool {
	p, ok := v.pending[k]
	return ok && p.id != "" && work.Annotations[bundles.WriteIDAnnotation] == p.id && !deleting(work)
}

// asRead is the stream's bundle as a read returns it: Maestro's version
// (the stream's generation) as resourceVersion, and no sequence-id
// annotation. work is not modified.
func asRead(work *workv1.ManifestWork) *workv1.ManifestWork {
	w := *work
	w.ResourceVersion = strconv.FormatInt(work.Generation, 10)
	if _, ok := work.Annotations[sequenceIDAnnotation]; ok {
		w.Annotations = maps.Clone(work.Annotations)
		delete(w.Annotations, sequenceIDAnnotation)
	}
	return &w
}

// PendingCreates is the number of creates whose first status the view
// waits for.
func (v *View) PendingCreates() int {
	v.mu.RLock()
	defer v.mu.RUnlock()
	return len(v.pending)
}

// UnlistedCreates is the number of creates this process sent at least
// olderThan ago that still have no entry: no status of the agent made one
// (none reported yet, or no agent), and no read or List since. The
// refresher lists when they are many (Refresher.createsDue): one List
// then makes all their entries instead of one read each in the round after
// the creates.
func (v *View) UnlistedCreates(olderThan time.Duration) int {
	v.mu.RLock()
	defer v.mu.RUnlock()
	before := v.since(v.clock()) - olderThan
	n := 0
	for k, p := range v.pending {
		if p.at > before {
			continue
		}
		if e := v.entries[k]; e == nil || e.gone {
			n++
		}
	}
	return n
}
