package view_test

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/bundles"
)

// Every input of the view that tells something newer than a read in
// flight of the same bundle, arriving between the read's start and its
// answer being stored, leaves the view either missing the bundle (the
// next event reads it again) or holding what that input told: never the
// read's older answer as if it were current. The members of the class,
// each before a single read and before a List page: the adapter's own
// write (Forget), a (re)subscription, and every kind of stream event
// (the agent's status for a bundle with an entry, without one, or just
// written; another spec; a deletion; a confirmation; an event without
// work metadata). A new input of View belongs in this table. (The
// adapter's own create and the first status echoing its write id, which
// needs the bundle absent first, have their read and List page rows in
// TestOwnCreateMakesTheEntry.)
func TestNoReadInFlightOvertakesANewerInput(t *testing.T) {
	available := func(h *harness) *workv1.ManifestWork { return withCondition(h.current(), workv1.WorkAvailable) }
	inputs := []struct {
		name string
		// entry: the bundle is read (an entry) before the read in flight
		// starts; false: it has none (never read, or just written).
		entry bool
		feed  func(h *harness)
		// status: a hit must carry the stream's Available condition.
		status bool
		// written: the adapter wrote the bundle (a marker) after it was
		// read, before the read in flight began.
		written bool
	}{
		{"own write (Forget)", true, func(h *harness) { h.view.Forget(consumer, name) }, false, false},
		{"own write, no entry", false, func(h *harness) { h.view.Forget(consumer, name) }, false, false},
		{"resubscription", true, func(h *harness) { h.view.Subscribed() }, false, false},
		{"agent status, entry", true, func(h *harness) { h.view.Status(available(h)) }, true, false},
		{"agent status, no entry", false, func(h *harness) { h.view.Status(available(h)) }, true, false},
		{"own write, then agent status", true, func(h *harness) {
			h.view.Forget(consumer, name)
			h.view.Status(available(h))
		}, true, false},
		{"agent status, written before the read began", true, func(h *harness) { h.view.Status(available(h)) }, true, true},
		{"another spec (generation)", true, func(h *harness) {
			w := h.current()
			w.Generation++
			h.view.Status(w)
		}, false, false},
		{"another spec (fingerprint), no entry", false, func(h *harness) {
			w := h.current()
			w.Annotations[bundles.FingerprintAnnotation] = fp2
			h.view.Status(w)
		}, false, false},
		{"deleting", false, func(h *harness) { h.view.Status(withCondition(h.current(), workv1.WorkDeleting)) }, false, false},
		{"deleted (confirmation)", true, func(h *harness) { h.view.Status(withCondition(h.current(), "Deleted")) }, false, false},
		{"no work metadata (by uid)", true, func(h *harness) {
			w := h.current()
			h.view.Status(&workv1.ManifestWork{ObjectMeta: metav1.ObjectMeta{UID: w.UID, Name: string(w.UID)}})
		}, false, false},
	}
	reads := []struct {
		name string
		read func(h *harness, feed func(h *harness))
	}{
		{"read", func(h *harness, feed func(h *harness)) {
			tok := h.view.Begin()
			w := h.current()
			feed(h)
			h.view.Observe(tok, consumer, name, w)
		}},
		{"List page", func(h *harness, feed func(h *harness)) {
			l := h.view.BeginList()
			w := h.current()
			feed(h)
			h.view.Refresh(l, []adapter.BundleKey{{Consumer: consumer, Name: name}}, []*workv1.ManifestWork{w})
		}},
	}
	for _, in := range inputs {
		for _, r := range reads {
			t.Run(r.name+" across "+in.name, func(t *testing.T) {
				h := newHarness(t)
				h.view.Subscribed()
				h.create()
				if in.entry {
					h.read()
				}
				if in.written {
					h.view.Forget(consumer, name)
				}
				r.read(h, in.feed)
				w, hit := h.view.Lookup(consumer, name)
				if !hit {
					return // read again at the next event
				}
				if !in.status {
					t.Fatalf("hit after %s: the read in flight (or an older one) stood for the bundle", in.name)
				}
				if !meta.IsStatusConditionTrue(w.Status.Conditions, workv1.WorkAvailable) {
					t.Fatalf("hit after %s without the stream's status: %+v", in.name, w.Status.Conditions)
				}
			})
		}
	}
}
