package adapter_test

import (
	"context"
	"testing"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/bundles"
)

// rewrite has another writer (hyperfleet-adapter taken over again after a
// rollback) rewrite bundle name of h: the content the template renders
// for generation gen, with this adapter's fingerprint annotation removed
// (a full PUT, as hyperfleet-adapter's kubernetes client does) or kept as
// it was (a merge patch, as its Maestro client sends: the keys it does not
// name stay).
func rewrite(t *testing.T, h *harness, name string, gen int64, keepFingerprint bool) {
	t.Helper()
	ctx := context.Background()
	other := newHarness(t, "pending")
	other.event(map[string]any{"generation": gen})
	want, err := other.store.Get(ctx, "c1", name)
	if err != nil {
		t.Fatal(err)
	}
	live, err := h.store.Get(ctx, "c1", name)
	if err != nil {
		t.Fatal(err)
	}
	d := live.DeepCopy()
	d.Spec, d.Labels = want.Spec, want.Labels
	d.Annotations = map[string]string{}
	for k, v := range want.Annotations {
		d.Annotations[k] = v
	}
	delete(d.Annotations, bundles.FingerprintAnnotation)
	if keepFingerprint {
		d.Annotations[bundles.FingerprintAnnotation] = live.Annotations[bundles.FingerprintAnnotation]
	}
	if _, err := h.store.Update(ctx, "c1", live, d); err != nil {
		t.Fatal(err)
	}
}

// Rollback, then bundle-adapter again: after bundle-adapter wrote, another
// writer rewrote its bundles. Bundle-adapter adopts what holds the content
// it would write (no write) and writes the others once; the next event
// writes nothing.
func TestRollbackThenBackAdoptsOrWritesOnce(t *testing.T) {
	tests := []struct {
		name            string
		gen             int64 // the other writer's generation; bundle-adapter comes back at 2
		keepFingerprint bool
		wantOp          adapter.Operation
		wantReason      string
		wantWrites      int
	}{
		{"same content, fingerprint removed", 2, false, adapter.OpUnchanged, adapter.ReasonAdopted, 0},
		{"other content, fingerprint removed", 3, false, adapter.OpUpdate, adapter.ReasonUpdated, 2},
		// A merge patch keeps the fingerprint of generation 1 on content of
		// generation 2: the fingerprint differs, so it is written once.
		{"same content, stale fingerprint kept", 2, true, adapter.OpUpdate, adapter.ReasonUpdated, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, "pending")
			h.event(nil) // bundle-adapter wrote generation 1
			for _, name := range []string{"x-config", "x-job"} {
				rewrite(t, h, name, tt.gen, tt.keepFingerprint)
			}
			res := h.event(map[string]any{"generation": int64(2)})
			wantOutcome(t, outcome(t, res, "config"), tt.wantOp, adapter.StateDone, tt.wantReason)
			wantOutcome(t, outcome(t, res, "job"), tt.wantOp, adapter.StateDone, tt.wantReason)
			if n := h.writes(); n != tt.wantWrites {
				t.Errorf("%d writes, want %d: %v", n, tt.wantWrites, h.calls())
			}
			h.event(map[string]any{"generation": int64(2)})
			if n := h.writes(); n != 0 {
				t.Errorf("the event after: %d writes, want 0: %v", n, h.calls())
			}
		})
	}
}

// The same on the kubernetes transport: an object another writer replaced
// (a PUT: this adapter's annotations gone) is adopted when its content is
// the rendered one, and written once otherwise.
func TestKubernetesRollbackThenBackAdoptsOrWritesOnce(t *testing.T) {
	for _, tt := range []struct {
		rev        string
		wantOp     adapter.Operation
		wantReason string
		// nextReason: an adopted object stays adopted (nothing stamps
		// it); a written one carries the fingerprint.
		nextReason string
	}{{"1", adapter.OpUnchanged, adapter.ReasonAdopted, adapter.ReasonAdopted}, {"other", adapter.OpUpdate, adapter.ReasonUpdated, adapter.ReasonUnchanged}} {
		t.Run("rev "+tt.rev, func(t *testing.T) {
			h := newKubeHarness(t)
			h.event(nil) // bundle-adapter wrote both objects
			for _, o := range h.kube.Objects() {
				o = o.DeepCopy()
				a := o.GetAnnotations()
				delete(a, bundles.FingerprintAnnotation)
				o.SetAnnotations(a)
				o.SetResourceVersion("")
				if o.GetKind() == "ConfigMap" {
					o.Object["data"] = map[string]any{"rev": tt.rev}
				}
				if err := h.kube.Seed(o); err != nil {
					t.Fatal(err)
				}
			}
			res := h.event(nil)
			wantOutcome(t, outcome(t, res, "ns"), adapter.OpUnchanged, adapter.StateDone, adapter.ReasonAdopted)
			wantOutcome(t, outcome(t, res, "cfg"), tt.wantOp, adapter.StateDone, tt.wantReason)
			res = h.event(nil)
			wantOutcome(t, outcome(t, res, "cfg"), adapter.OpUnchanged, adapter.StateDone, tt.nextReason)
		})
	}
}
