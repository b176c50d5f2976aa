package view_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/bundles"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/memmaestro"
)

// deleteConfirmed deletes the bundle in Maestro, lets the agent confirm it,
// and plays the stream's Deleted confirmation to the view: the bundle's
// metadata as Maestro last held it (annotations included, no
// deletionTimestamp) with the Deleted condition.
func (h *harness) deleteConfirmed() {
	h.t.Helper()
	if err := h.store.Delete(context.Background(), consumer, name); err != nil {
		h.t.Fatal(err)
	}
	w := h.current()
	if err := h.store.Confirm(consumer, name); err != nil {
		h.t.Fatal(err)
	}
	w.DeletionTimestamp = nil
	h.view.Status(withCondition(withCondition(w, workv1.WorkDeleting), "Deleted"))
}

// The stream's Deleted confirmation leaves a tombstone naming the deleted
// bundle's fingerprint, for a bounded time, until the bundle exists again
// or the stream is resubscribed; nothing else makes one.
func TestTombstone(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name  string
		steps func(h *harness)
		want  string // fingerprint; "" for no tombstone
	}{
		{"never deleted: none", func(h *harness) { h.view.Subscribed(); h.create(); h.read() }, ""},
		{"read, deletion confirmed: the old fingerprint", func(h *harness) {
			h.view.Subscribed()
			h.create()
			h.read()
			h.deleteConfirmed()
		}, fp1},
		{"confirmed for a bundle the view never read: kept", func(h *harness) {
			h.view.Subscribed()
			h.create()
			h.deleteConfirmed()
		}, fp1},
		{"deleting, not yet confirmed: none", func(h *harness) {
			h.view.Subscribed()
			h.create()
			_ = h.store.Delete(ctx, consumer, name)
			w := h.current()
			w.DeletionTimestamp = nil
			h.view.Status(withCondition(w, workv1.WorkDeleting))
		}, ""},
		{"confirmation without the fingerprint annotation: none", func(h *harness) {
			h.view.Subscribed()
			h.view.Status(withCondition(&workv1.ManifestWork{ObjectMeta: metav1.ObjectMeta{Namespace: consumer, Name: name}}, "Deleted"))
		}, ""},
		{"confirmation without the bundle's name: none", func(h *harness) {
			h.view.Subscribed()
			h.create()
			w := h.current()
			h.view.Status(withCondition(&workv1.ManifestWork{ObjectMeta: metav1.ObjectMeta{UID: w.UID, Name: string(w.UID),
				Annotations: map[string]string{bundles.FingerprintAnnotation: fp1}}}, "Deleted"))
		}, ""},
		{"at the age bound: kept", func(h *harness) {
			h.view.Subscribed()
			h.create()
			h.deleteConfirmed()
			h.now = h.now.Add(adapter.RecreationMemory)
		}, fp1},
		{"past the age bound: none", func(h *harness) {
			h.view.Subscribed()
			h.create()
			h.deleteConfirmed()
			h.now = h.now.Add(adapter.RecreationMemory + time.Second)
		}, ""},
		{"resubscribed: dropped", func(h *harness) {
			h.view.Subscribed()
			h.create()
			h.deleteConfirmed()
			h.view.Subscribed()
		}, ""},
		{"created again by another replica, the stream shows it: dropped", func(h *harness) {
			h.view.Subscribed()
			h.create()
			h.deleteConfirmed()
			h.create()
			h.view.Status(withCondition(h.current(), workv1.WorkApplied))
		}, ""},
		{"created again through this view's Maestro: dropped", func(h *harness) {
			h.view.Subscribed()
			h.create()
			h.deleteConfirmed()
			if _, err := h.m.Create(ctx, consumer, fixture(h.t), adapter.Unread); err != nil {
				h.t.Fatal(err)
			}
		}, ""},
		{"a create that fails keeps it", func(h *harness) {
			h.view.Subscribed()
			h.create()
			h.deleteConfirmed()
			h.store.FailNext(memmaestro.VerbCreate, 1, adapter.ErrUnavailable)
			_, _ = h.m.Create(ctx, consumer, fixture(h.t), adapter.Unread)
		}, fp1},
		{"a read does not drop it (it may have begun before the deletion)", func(h *harness) {
			h.view.Subscribed()
			h.create()
			tok := h.view.Begin()
			old := h.current()
			h.deleteConfirmed()
			h.view.Observe(tok, consumer, name, old)
		}, fp1},
		{"deleted twice: the last fingerprint", func(h *harness) {
			h.view.Subscribed()
			h.create()
			h.deleteConfirmed()
			w := fixture(h.t)
			w.Annotations[bundles.FingerprintAnnotation] = fp2
			if _, err := h.store.Create(ctx, consumer, w, adapter.Unread); err != nil {
				h.t.Fatal(err)
			}
			h.deleteConfirmed()
		}, fp2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			tt.steps(h)
			fp, _, ok := h.view.Tombstone(consumer, name)
			if got := map[bool]string{true: fp}[ok]; got != tt.want || (ok && fp == "") {
				t.Fatalf("Tombstone = %q, %v; want %q", fp, ok, tt.want)
			}
		})
	}
}

// The tombstones are bounded in count as the adapter's memory of
// recreations is: a full set evicts expired tombstones first and otherwise
// records no new one.
func TestTombstonesAreBounded(t *testing.T) {
	tests := []struct {
		name     string
		fillAge  time.Duration // age of the MaxRecreations other tombstones when the new one comes
		recorded bool
		held     int
	}{
		{"full of live tombstones: not recorded", time.Minute, false, adapter.MaxRecreations},
		{"full of expired tombstones: evicted, recorded", adapter.RecreationMemory + time.Second, true, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			h.view.Subscribed()
			for i := range adapter.MaxRecreations {
				w := fixture(t)
				w.Name = fmt.Sprintf("other-%d", i)
				h.view.Status(withCondition(w, "Deleted"))
			}
			h.now = h.now.Add(tt.fillAge)
			h.create()
			h.deleteConfirmed()
			if _, _, ok := h.view.Tombstone(consumer, name); ok != tt.recorded {
				t.Errorf("recorded = %v, want %v", ok, tt.recorded)
			}
			if got := h.view.TombstoneCount(); got != tt.held {
				t.Errorf("%d tombstones held, want %d", got, tt.held)
			}
		})
	}
}

// Fingerprints of the fixtures (testdata/work.json holds fp1), in the form
// bundles.Fingerprint writes.
const (
	fp1 = "1111111111111111111111111111111111111111111111111111111111111111"
	fp2 = "2222222222222222222222222222222222222222222222222222222222222222"
)

// A Deleted confirmation whose fingerprint annotation is not one the
// adapter writes (corrupt, or a megabyte of it) leaves no tombstone: nothing
// of it is kept, nor copied into a new bundle.
func TestTombstoneKeepsOnlyFingerprints(t *testing.T) {
	tests := []struct {
		name string
		fp   string
		kept bool
	}{
		{"a fingerprint", fp2, true},
		{"not hex", strings.Repeat("z", 64), false},
		{"a megabyte", strings.Repeat("a", 1<<20), false},
		{"JSON text", `{"a":"b"}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			h.view.Subscribed()
			w := fixture(t)
			w.Annotations[bundles.FingerprintAnnotation] = tt.fp
			h.view.Status(withCondition(w, "Deleted"))
			got, _, ok := h.view.Tombstone(w.Namespace, w.Name)
			if ok != tt.kept || (ok && got != tt.fp) {
				t.Errorf("Tombstone = %.20q, %v; want kept %v", got, ok, tt.kept)
			}
		})
	}
}
