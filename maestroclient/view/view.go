package view

import (
	"crypto/sha256"
	"sync"
	"sync/atomic"
	"time"
	"unique"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/bundles"
)

// DefaultMaxAge is Options.MaxAge when it is zero.
const DefaultMaxAge = 5 * time.Minute

// Options configures a View.
type Options struct {
	// MaxAge is how long after a read an entry may be trusted; zero means
	// DefaultMaxAge. Past it the next event reads Maestro (and refreshes
	// the entry). It bounds how long a change the stream did not carry
	// (another writer's delete while no agent reports) can go unseen.
	MaxAge time.Duration
	// Clock defaults to time.Now.
	Clock func() time.Time
	// Synced starts the view as if a subscription had completed: for a
	// view without a stream (tests, dry-run), which then relies on reads
	// and MaxAge alone.
	Synced bool
}

// View is the watch-fed view of this source's bundles. It is safe for
// concurrent use. Create it with New.
type View struct {
	maxAge time.Duration
	clock  func() time.Time
	epoch  time.Time // the clock at New: entries keep their times from it

	mu      sync.RWMutex
	entries map[key]*entry // an entry is never changed in place, only replaced
	synced  bool
	// seq numbers every change; dropped is the seq of the last drop of
	// the whole view (or of the newest swept marker, see sweep). A read
	// that began at a token before dropped stores nothing; one that began
	// before its bundle's entry or marker changed stores nothing either.
	seq, dropped uint64
	changes      uint64        // reads stored and markers left, for sweep
	swept        time.Duration // since epoch: the last sweep

	dict atomic.Pointer[dictionary] // set by the first pack (pack.go)

	pending map[key]pendingCreate // creates whose first status makes the entry (create.go)

	tombMu     sync.Mutex
	tombstones map[key]tombstone // deletions the stream confirmed (tombstone.go)
}

// key names a bundle. Consumers are few and shared by many bundles, so
// each is held once (unique.Handle: 8 bytes a key instead of a copy of the
// consumer's name in every entry).
type key struct {
	consumer unique.Handle[string]
	name     string
}

func keyOf(consumer, name string) key { return key{unique.Make(consumer), name} }

// entry is what the view holds of one bundle: at 50,000 bundles every byte
// of it is 50 KB of heap, about three times that of RSS (issue 17), so
// what is only ever compared is kept as a digest.
type entry struct {
	packed string // the bundle, see pack
	// What Lookup and Status decide on, kept unpacked.
	spec       specDigest // of the bundle's uid and fingerprint annotation
	uid        uidSum
	generation int64
	read       time.Duration // since the view's epoch: when Maestro answered with it, or forgot
	seq        uint64
	deleting   bool
	// gone marks a forgotten bundle: no entry, only the seq that keeps
	// older reads of it from storing (forget).
	gone bool
}

// specDigest identifies what a bundle was written as: the first 16 bytes
// of the SHA-256 of its uid, its fingerprint annotation and its write id
// annotation (Status compares a stream event's with it; the write id tells
// a bundle from an earlier one of the same name, create.go).
type specDigest [16]byte

func specSum(w *workv1.ManifestWork) specDigest {
	h := sha256.New()
	h.Write([]byte(w.UID))
	h.Write([]byte{0})
	h.Write([]byte(w.Annotations[bundles.FingerprintAnnotation]))
	h.Write([]byte{0})
	h.Write([]byte(w.Annotations[bundles.WriteIDAnnotation]))
	var sum [sha256.Size]byte
	return specDigest(h.Sum(sum[:0]))
}

// uidSum is a bundle uid's digest (forgetUID compares them).
type uidSum [16]byte

func uidOf(uid types.UID) uidSum {
	full := sha256.Sum256([]byte(uid))
	return uidSum(full[:16])
}

// since is now as an entry keeps it.
func (v *View) since(now time.Time) time.Duration { return now.Sub(v.epoch) }

// newEntry packs work; it returns false when work cannot be packed (the
// view then forgets the bundle: a miss costs a read, nothing else).
func (v *View) newEntry(work *workv1.ManifestWork, read time.Duration) (entry, bool) {
	packed, err := v.pack(work)
	if err != nil {
		return entry{}, false
	}
	return entry{packed: packed, spec: specSum(work), uid: uidOf(work.UID), generation: work.Generation,
		deleting: deleting(work), read: read}, true
}

// New returns an empty view.
func New(o Options) *View {
	if o.MaxAge <= 0 {
		o.MaxAge = DefaultMaxAge
	}
	if o.Clock == nil {
		o.Clock = time.Now
	}
	return &View{maxAge: o.MaxAge, clock: o.Clock, epoch: o.Clock(), entries: map[key]*entry{}, synced: o.Synced,
		pending: map[key]pendingCreate{}, tombstones: map[key]tombstone{}}
}

// Lookup returns the bundle as Maestro last answered for it, with the
// stream's latest status, when it may be trusted: the view is synced, the
// entry was read within MaxAge, and the bundle is present and not being
// deleted. ok false means: read Maestro. The returned work is the
// caller's own copy.
func (v *View) Lookup(consumer, name string) (*workv1.ManifestWork, bool) {
	e, ok := v.trusted(consumer, name)
	if !ok {
		return nil, false
	}
	work, err := v.unpack(e.packed)
	if err != nil {
		return nil, false
	}
	return work, true
}

// LookupObject is Lookup with the bundle as the unstructured object
// runtime.DefaultUnstructuredConverter.ToUnstructured makes of the work
// Lookup returns, decoded from the entry directly (a hit that only needs
// the object, as CEL sees it, skips the typed work). The object is the
// caller's own.
func (v *View) LookupObject(consumer, name string) (map[string]any, bool) {
	e, ok := v.trusted(consumer, name)
	if !ok {
		return nil, false
	}
	obj, err := v.unpackObject(e.packed)
	if err != nil {
		return nil, false
	}
	return obj, true
}

// trusted is the entry of a bundle when Lookup may return it.
func (v *View) trusted(consumer, name string) (entry, bool) {
	v.mu.RLock()
	e, found := v.entries[keyOf(consumer, name)]
	synced := v.synced
	v.mu.RUnlock()
	if !synced || !found || e.gone || v.since(v.clock())-e.read > v.maxAge || e.deleting {
		return entry{}, false
	}
	return *e, true
}

// Len is the number of entries held, forgotten bundles' markers not
// counted.
func (v *View) Len() int {
	v.mu.RLock()
	defer v.mu.RUnlock()
	n := 0
	for _, e := range v.entries {
		if !e.gone {
			n++
		}
	}
	return n
}

// deleting reports whether the bundle is being deleted or gone, by its
// deletionTimestamp or the agent's Deleting/Deleted conditions.
func deleting(w *workv1.ManifestWork) bool {
	return w.DeletionTimestamp != nil ||
		meta.IsStatusConditionTrue(w.Status.Conditions, workv1.WorkDeleting) ||
		meta.IsStatusConditionTrue(w.Status.Conditions, conditionDeleted)
}

// conditionDeleted is the condition the agent sets when it confirmed a
// deletion (sdk-go common.ResourceDeleted); Maestro then deletes the bundle.
const conditionDeleted = "Deleted"

// Synced reports whether a subscription completed (or Options.Synced):
// from then on reads fill the view.
func (v *View) Synced() bool {
	v.mu.RLock()
	defer v.mu.RUnlock()
	return v.synced
}
