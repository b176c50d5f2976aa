package view_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/bundles"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/memmaestro"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/view"
)

const consumer, name = "cluster1", "c1-namespace"

// harness is a view fed by reads through memmaestro and by a fake status
// stream the steps drive by hand.
type harness struct {
	t     *testing.T
	now   time.Time
	store *memmaestro.Store
	view  *view.View
	m     adapter.Maestro
}

func newHarness(t *testing.T) *harness {
	h := &harness{t: t, now: time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)}
	clock := func() time.Time { return h.now }
	h.store = memmaestro.New(memmaestro.Options{Clock: clock})
	h.view = view.New(view.Options{MaxAge: time.Minute, Clock: clock})
	h.m = view.Maestro(h.store, h.view)
	return h
}

// fixture is testdata/work.json (pack_internal_test.go reads it).
func fixture(t *testing.T) *workv1.ManifestWork { return view.Fixture(t) }

func (h *harness) create() {
	if _, err := h.store.Create(context.Background(), consumer, fixture(h.t), adapter.Unread); err != nil {
		h.t.Fatal(err)
	}
}

func (h *harness) read() {
	if _, err := h.m.Get(context.Background(), consumer, name); err != nil && !isNotFound(err) {
		h.t.Fatal(err)
	}
}

// readAcross subscribes, creates the bundle and reads it with change
// happening between the read's Begin and its Observe.
func (h *harness) readAcross(change func()) {
	h.view.Subscribed()
	h.create()
	tok := h.view.Begin()
	w := h.current()
	change()
	h.view.Observe(tok, consumer, name, w)
}

func isNotFound(err error) bool { return err != nil && errors.Is(err, adapter.ErrNotFound) }

// current is the bundle as Maestro holds it now, as the stream would carry it.
func (h *harness) current() *workv1.ManifestWork {
	w, err := h.store.Get(context.Background(), consumer, name)
	if err != nil {
		h.t.Fatal(err)
	}
	return w
}

func withCondition(w *workv1.ManifestWork, typ string) *workv1.ManifestWork {
	meta.SetStatusCondition(&w.Status.Conditions, metav1.Condition{Type: typ, Status: metav1.ConditionTrue, Reason: typ})
	return w
}

func TestLookup(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name  string
		steps func(h *harness)
		hit   bool
		check func(t *testing.T, w *workv1.ManifestWork)
	}{
		{"not synced: every lookup misses", func(h *harness) { h.create(); h.read() }, false, nil},
		{"read after subscription: hit", func(h *harness) { h.view.Subscribed(); h.create(); h.read() }, true, nil},
		{"never read: miss", func(h *harness) { h.view.Subscribed(); h.create() }, false, nil},
		{"read at the bound: hit", func(h *harness) {
			h.view.Subscribed()
			h.create()
			h.read()
			h.now = h.now.Add(time.Minute)
		}, true, nil},
		{"read past the bound: miss", func(h *harness) {
			h.view.Subscribed()
			h.create()
			h.read()
			h.now = h.now.Add(time.Minute + time.Second)
		}, false, nil},
		{"past the bound, read again: hit", func(h *harness) {
			h.view.Subscribed()
			h.create()
			h.read()
			h.now = h.now.Add(2 * time.Minute)
			h.read()
		}, true, nil},
		{"read while deleting: miss", func(h *harness) {
			h.view.Subscribed()
			h.create()
			_ = h.store.Delete(ctx, consumer, name)
			h.read()
		}, false, nil},
		{"404 forgets: miss", func(h *harness) {
			h.view.Subscribed()
			h.create()
			h.read()
			_ = h.store.Delete(ctx, consumer, name)
			_ = h.store.Confirm(consumer, name)
			h.read()
		}, false, nil},
		{"GetBundles feeds: hit", func(h *harness) {
			h.view.Subscribed()
			h.create()
			if _, err := h.m.GetBundles(ctx, []adapter.BundleKey{{Consumer: consumer, Name: name}, {Consumer: consumer, Name: "other"}}); err != nil {
				h.t.Fatal(err)
			}
		}, true, nil},
		{"own create forgets: miss", func(h *harness) {
			h.view.Subscribed()
			h.create()
			h.read()
			_, _ = h.m.Create(ctx, consumer, fixture(h.t), adapter.Unread)
		}, false, nil},
		{"own update forgets: miss", func(h *harness) {
			h.view.Subscribed()
			h.create()
			h.read()
			_, _ = h.m.Update(ctx, consumer, h.current(), fixture(h.t))
		}, false, nil},
		{"own delete forgets: miss", func(h *harness) {
			h.view.Subscribed()
			h.create()
			h.read()
			_ = h.m.Delete(ctx, consumer, name)
		}, false, nil},
		{"stream status, same spec: hit with the new status", func(h *harness) {
			h.view.Subscribed()
			h.create()
			h.read()
			h.view.Status(withCondition(h.current(), workv1.WorkAvailable))
		}, true, func(t *testing.T, w *workv1.ManifestWork) {
			if !meta.IsStatusConditionTrue(w.Status.Conditions, workv1.WorkAvailable) {
				t.Errorf("status not taken from the stream: %+v", w.Status.Conditions)
			}
		}},
		{"stream Deleting (another replica deleted): miss", func(h *harness) {
			h.view.Subscribed()
			h.create()
			h.read()
			h.view.Status(withCondition(h.current(), workv1.WorkDeleting))
		}, false, nil},
		{"stream Deleted (agent confirmed): miss", func(h *harness) {
			h.view.Subscribed()
			h.create()
			h.read()
			h.view.Status(withCondition(h.current(), "Deleted"))
		}, false, nil},
		{"stream other generation (another replica updated): miss", func(h *harness) {
			h.view.Subscribed()
			h.create()
			h.read()
			w := h.current()
			w.Generation++
			h.view.Status(w)
		}, false, nil},
		{"stream other fingerprint: miss", func(h *harness) {
			h.view.Subscribed()
			h.create()
			h.read()
			w := h.current()
			w.Annotations[bundles.FingerprintAnnotation] = fp2
			h.view.Status(w)
		}, false, nil},
		{"stream without work metadata forgets by uid: miss", func(h *harness) {
			h.view.Subscribed()
			h.create()
			h.read()
			w := h.current()
			h.view.Status(&workv1.ManifestWork{ObjectMeta: metav1.ObjectMeta{UID: w.UID, Name: string(w.UID)}})
		}, false, nil},
		{"stream for a bundle never read makes no entry: miss", func(h *harness) {
			h.view.Subscribed()
			h.create()
			h.view.Status(h.current())
		}, false, nil},
		{"resubscribed (stream lost): miss", func(h *harness) {
			h.view.Subscribed()
			h.create()
			h.read()
			h.view.Subscribed()
		}, false, nil},
		{"resubscribed, read again: hit", func(h *harness) {
			h.view.Subscribed()
			h.create()
			h.read()
			h.view.Subscribed()
			h.read()
		}, true, nil},
		{"read in flight across a resubscription stores nothing: miss", func(h *harness) {
			h.readAcross(h.view.Subscribed)
		}, false, nil},
		{"read in flight across a forget stores nothing: miss", func(h *harness) {
			h.readAcross(func() { h.view.Forget(consumer, name) })
		}, false, nil},
		{"read in flight of this bundle across another's forget stores: hit", func(h *harness) {
			// A forget (a write, a 404, a stream event the view cannot
			// apply) is about one bundle: reads of the others in flight
			// still fill the view. Under a create phase or a status burst
			// a global drop left bundles unread and their events on reads.
			h.readAcross(func() { h.view.Forget(consumer, "another-bundle") })
		}, true, nil},
		{"read in flight across a forget, then another read stores: hit", func(h *harness) {
			h.readAcross(func() { h.view.Forget(consumer, name) })
			h.read()
		}, true, nil},
		{"read in flight across a stream status of a bundle without an entry stores nothing: miss", func(h *harness) {
			// The read may have been answered before the agent's status
			// reached Maestro: storing it would hand CEL a bundle without
			// the status the stream already brought, for MaxAge.
			h.readAcross(func() { h.view.Status(withCondition(h.current(), workv1.WorkAvailable)) })
		}, false, nil},
		{"read in flight across a stream status of a bundle just written stores nothing: miss", func(h *harness) {
			h.view.Subscribed()
			h.create()
			h.read()
			h.view.Forget(consumer, name) // the adapter's own write
			tok := h.view.Begin()
			w := h.current()
			h.view.Status(withCondition(h.current(), workv1.WorkAvailable))
			h.view.Observe(tok, consumer, name, w)
		}, false, nil},
		{"read in flight across a stream status, then another read stores: hit with the status", func(h *harness) {
			h.readAcross(func() {
				w := withCondition(h.current(), workv1.WorkAvailable)
				if err := h.store.SetStatus(consumer, name, w.Status); err != nil {
					h.t.Fatal(err)
				}
				h.view.Status(w)
			})
			h.read()
		}, true, func(t *testing.T, w *workv1.ManifestWork) {
			if !meta.IsStatusConditionTrue(w.Status.Conditions, workv1.WorkAvailable) {
				t.Errorf("the read after the stream's status lacks it: %+v", w.Status.Conditions)
			}
		}},
		{"forgotten, then the stream shows a status: miss", func(h *harness) {
			h.view.Subscribed()
			h.create()
			h.read()
			h.view.Forget(consumer, name)
			h.view.Status(withCondition(h.current(), workv1.WorkAvailable))
		}, false, nil},
		{"read in flight older than a stream update keeps the newer: hit, new status", func(h *harness) {
			h.view.Subscribed()
			h.create()
			h.read()
			tok := h.view.Begin()
			old := h.current()
			h.view.Status(withCondition(h.current(), workv1.WorkAvailable))
			h.view.Observe(tok, consumer, name, old)
		}, true, func(t *testing.T, w *workv1.ManifestWork) {
			if !meta.IsStatusConditionTrue(w.Status.Conditions, workv1.WorkAvailable) {
				t.Errorf("an older read overwrote the stream's status: %+v", w.Status.Conditions)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			tt.steps(h)
			w, ok := h.view.Lookup(consumer, name)
			if ok != tt.hit {
				t.Fatalf("Lookup hit = %v, want %v", ok, tt.hit)
			}
			if ok && w.Name != name {
				t.Errorf("Lookup returned %q", w.Name)
			}
			if tt.check != nil && ok {
				tt.check(t, w)
			}
		})
	}
}

// TestSyncedOptionTrustsReadsWithoutAStream: a view without a stream
// (dry-run, tests) serves what it read within MaxAge.
func TestSyncedOptionTrustsReadsWithoutAStream(t *testing.T) {
	h := newHarness(t)
	h.view = view.New(view.Options{MaxAge: time.Minute, Clock: func() time.Time { return h.now }, Synced: true})
	h.m = view.Maestro(h.store, h.view)
	h.create()
	h.read()
	if _, ok := h.view.Lookup(consumer, name); !ok {
		t.Fatal("Lookup missed a bundle read within MaxAge")
	}
}
