package view_test

import (
	"context"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// list is one List of the bundle that begins now, reads Maestro's bundle,
// lets change happen, and stores the page after took on the clock.
func (h *harness) list(took time.Duration, change func()) {
	l := h.view.BeginList()
	w := h.current()
	if change != nil {
		change()
	}
	h.now = h.now.Add(took)
	h.view.Refresh(l, []adapter.BundleKey{{Consumer: consumer, Name: name}}, []*workv1.ManifestWork{w})
}

// A List stores what it listed as a read at its start would: a listed
// bundle is trusted, unless something the view learned after the List
// began (a forget, a write, a drop, a stream change) is newer.
func TestRefresh(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name  string
		steps func(h *harness)
		hit   bool
		check func(t *testing.T, w *workv1.ManifestWork)
	}{
		{"listed after subscription: hit", func(h *harness) { h.view.Subscribed(); h.create(); h.list(0, nil) }, true, nil},
		{"listed before any subscription: miss", func(h *harness) { h.create(); h.list(0, nil) }, false, nil},
		{"list older than a forget: miss", func(h *harness) {
			h.view.Subscribed()
			h.create()
			h.list(0, func() { h.view.Forget(consumer, name) })
		}, false, nil},
		{"list older than an own update: miss", func(h *harness) {
			h.view.Subscribed()
			h.create()
			h.list(0, func() { _, _ = h.m.Update(ctx, consumer, h.current(), fixture(h.t)) })
		}, false, nil},
		{"list older than an own delete: miss", func(h *harness) {
			h.view.Subscribed()
			h.create()
			h.list(0, func() { _ = h.m.Delete(ctx, consumer, name) })
		}, false, nil},
		{"list older than a resubscription: miss", func(h *harness) {
			h.view.Subscribed()
			h.create()
			h.list(0, h.view.Subscribed)
		}, false, nil},
		{"list older than a stream update of another spec: miss", func(h *harness) {
			h.view.Subscribed()
			h.create()
			h.read()
			h.list(0, func() {
				w := h.current()
				w.Generation++
				h.view.Status(w)
			})
		}, false, nil},
		{"list older than a stream status keeps the stream's: hit, new status", func(h *harness) {
			h.view.Subscribed()
			h.create()
			h.read()
			h.list(0, func() { h.view.Status(withCondition(h.current(), workv1.WorkAvailable)) })
		}, true, func(t *testing.T, w *workv1.ManifestWork) {
			if !meta.IsStatusConditionTrue(w.Status.Conditions, workv1.WorkAvailable) {
				t.Errorf("an older list overwrote the stream's status: %+v", w.Status.Conditions)
			}
		}},
		{"list older than a read keeps the read: hit", func(h *harness) {
			h.view.Subscribed()
			h.create()
			h.list(0, h.read)
		}, true, nil},
		{"listed while deleting: stored, not trusted: miss", func(h *harness) {
			h.view.Subscribed()
			h.create()
			_ = h.store.Delete(ctx, consumer, name)
			h.list(0, nil)
		}, false, nil},
		{"listed entry is read at the list's start: within MaxAge of it: hit", func(h *harness) {
			h.view.Subscribed()
			h.create()
			h.list(50*time.Second, nil)
			h.now = h.now.Add(10 * time.Second)
		}, true, nil},
		{"listed entry is read at the list's start: past MaxAge of it: miss", func(h *harness) {
			h.view.Subscribed()
			h.create()
			h.list(50*time.Second, nil)
			h.now = h.now.Add(11 * time.Second)
		}, false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			tt.steps(h)
			w, ok := h.view.Lookup(consumer, name)
			if ok != tt.hit {
				t.Fatalf("Lookup hit = %v, want %v", ok, tt.hit)
			}
			if tt.check != nil && ok {
				tt.check(t, w)
			}
		})
	}
}

// Lists every 3/4 MaxAge keep an entry trusted for as long as they go on;
// an entry no List names is not forgotten by one, and ages out MaxAge
// after its read.
func TestRefreshKeepsEntriesFresh(t *testing.T) {
	for _, tt := range []struct {
		name   string
		listed bool
		steps  int // lists, 45s apart (MaxAge 1m)
		hit    bool
	}{
		{"listed every 3/4 MaxAge: hit after ten MaxAges", true, 14, true},
		{"not listed, within MaxAge: hit", false, 1, true},
		{"not listed, past MaxAge: miss", false, 2, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			h.view.Subscribed()
			h.create()
			h.read()
			for range tt.steps {
				h.now = h.now.Add(45 * time.Second)
				l := h.view.BeginList()
				keys := []adapter.BundleKey{{Consumer: consumer, Name: "another"}}
				works := []*workv1.ManifestWork{fixture(t)}
				works[0].Name = "another"
				if tt.listed {
					keys, works = append(keys, adapter.BundleKey{Consumer: consumer, Name: name}), append(works, h.current())
				}
				h.view.Refresh(l, keys, works)
			}
			if _, ok := h.view.Lookup(consumer, name); ok != tt.hit {
				t.Fatalf("Lookup hit = %v, want %v", ok, tt.hit)
			}
			if _, ok := h.view.Lookup(consumer, "another"); !ok {
				t.Error("the bundle listed last missed")
			}
		})
	}
}

// A page's bundles are trusted from that page's request (PageRequested),
// not from the List's start: a List that takes long does not age its last
// pages, and the token stays the List's. A page read ahead and handed on
// later is trusted from its request, not from when it was handed on; a
// request time before the List's start counts from the start, one after
// now from now.
func TestPageRequestedReadTime(t *testing.T) {
	h := newHarness(t) // MaxAge 1m
	h.view.Subscribed()
	start := h.now
	l := h.view.BeginList()
	page := func(name string, requested time.Time) {
		w := fixture(t)
		w.Name = name
		h.view.Refresh(h.view.PageRequested(l, requested), []adapter.BundleKey{{Consumer: consumer, Name: name}}, []*workv1.ManifestWork{w})
	}
	page("first", start)
	h.now = h.now.Add(40 * time.Second)             // a slow first page
	page("second", h.now)                           // requested now
	page("ahead", start.Add(10*time.Second))        // read ahead: requested 30 s before it was handed on
	page("before the start", start.Add(-time.Hour)) // a clock that went back
	page("in the future", h.now.Add(time.Hour))     // or forward
	h.now = h.now.Add(25 * time.Second)             // 65 s after the List began, 25 s after page 2
	check := func(name string, want bool, why string) {
		t.Helper()
		if _, ok := h.view.Lookup(consumer, name); ok != want {
			t.Errorf("%s: hit %v, want %v (%s)", name, ok, want, why)
		}
	}
	check("first", false, "65 s after its request, MaxAge 1m")
	check("second", true, "25 s after its request")
	check("before the start", false, "counted from the List's start: 65 s")
	check("in the future", true, "counted from when it was handed on: 25 s")
	check("ahead", true, "55 s after its request")
	h.now = h.now.Add(6 * time.Second) // 61 s after the read-ahead page's request, 31 s after it was handed on
	check("ahead", false, "61 s after its request: aged from when it was handed on")
}

// Superseded says whether a List began before the last drop.
func TestSuperseded(t *testing.T) {
	h := newHarness(t)
	h.view.Subscribed()
	l := h.view.BeginList()
	h.view.Forget(consumer, name)
	if h.view.Superseded(l) {
		t.Error("a forget supersedes a List")
	}
	h.view.Subscribed()
	if !h.view.Superseded(l) {
		t.Error("a resubscription does not supersede a List")
	}
}
