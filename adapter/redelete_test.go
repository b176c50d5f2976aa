package adapter_test

import (
	"maps"
	"testing"
	"time"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/memmaestro"
)

// A deletion the agent never confirms, with events every interval for an
// hour: each harness event is a fresh pipeline (a restart, or the other
// replica), so nothing but the bundle in Maestro carries over. The delete is
// sent again only in the prompt window (15s-30s) and the windows of
// attempts 1..3 (job: deadline 5m, window 15s), at most once per event in a
// window, never after the last window, and nothing is ever created while
// the old bundle exists.
func TestRedeletesAreBounded(t *testing.T) {
	tests := []struct {
		name       string
		interval   time.Duration // Sentinel's resend interval
		offset     time.Duration // first event after the deletion
		perAttempt int           // events in one 15s window
		prompt     int           // events in the prompt window
	}{
		{"10s, windows hold two events", 10 * time.Second, 3 * time.Second, 2, 1},
		{"5s, windows hold three events", 5 * time.Second, 0, 3, 3},
		{"15s, windows hold one event", 15 * time.Second, 0, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, "")
			h.store.SetStuck("c1", "x-job", true)
			h.event(nil)
			gen2 := map[string]any{"generation": int64(2), "recreate": true}
			h.event(gen2) // the delete, at h.now
			deleted := h.now
			h.now = h.now.Add(tt.offset)
			perAttempt := map[int]int{}
			for ; h.now.Sub(deleted) < time.Hour; h.now = h.now.Add(tt.interval) {
				res := h.event(gen2)
				o := outcome(t, res, "job")
				for _, c := range h.store.Calls() {
					switch c.Verb {
					case memmaestro.VerbRedelete:
						perAttempt[int(h.now.Sub(deleted)/(5*time.Minute))]++
					case memmaestro.VerbCreate, memmaestro.VerbDelete:
						t.Fatalf("at %s: %s while the old bundle exists", h.now.Sub(deleted), c)
					}
				}
				if o.State == adapter.StateDone {
					t.Fatalf("at %s: done while the agent holds the deletion", h.now.Sub(deleted))
				}
			}
			want := map[int]int{0: tt.prompt, 1: tt.perAttempt, 2: tt.perAttempt, 3: tt.perAttempt}
			if !maps.Equal(perAttempt, want) {
				t.Errorf("re-sent deletes by period = %v, want %v", perAttempt, want)
			}
		})
	}
}

// An agent that lost the deletion confirms the re-sent delete (memmaestro
// under DeleteImmediate removes a work on Redelete once it is no longer held):
// Maestro answers 404 in the same pass and the recreation completes at once.
// Between the prompt window and the deadline nothing is sent again however
// long the agent takes.
func TestRedeleteHealsALostDeletion(t *testing.T) {
	h, gen2 := lostDelete(t)

	h.now = h.now.Add(4 * time.Minute)
	wantOutcome(t, outcome(t, h.event(gen2), "job"), adapter.OpRecreate, adapter.StatePending, adapter.ReasonRecreationPending)
	wantCalls(t, h.calls(), "get x-config", "get x-job")

	h.now = h.now.Add(time.Minute + 2*time.Second)
	res := h.event(gen2)
	o := outcome(t, res, "job")
	wantOutcome(t, o, adapter.OpRecreate, adapter.StateDone, adapter.ReasonRecreated)
	wantCalls(t, h.calls(), "get x-config", "get x-job", "redelete x-job", "get x-job", "create x-job")
	if o.Redeletes != 0 {
		t.Errorf("a done outcome reports redeletes %d, want 0", o.Redeletes)
	}
}

// The real agent's lost deletion (issue 41): it deleted the Job but its
// store lost the deletion, so it never confirms, and at the work's requeue
// (4-6 minutes later) it applies the Job again. The first event one window
// after the delete sends it again, long before the deadline; the agent
// confirms it and the recreation completes in that pass. Events before the
// window and after it send nothing.
func TestPromptRedeleteHealsALostDeletion(t *testing.T) {
	h, gen2 := lostDelete(t)

	h.now = h.now.Add(10 * time.Second)
	wantOutcome(t, outcome(t, h.event(gen2), "job"), adapter.OpRecreate, adapter.StatePending, adapter.ReasonRecreationPending)
	wantCalls(t, h.calls(), "get x-config", "get x-job")

	h.now = h.now.Add(10 * time.Second) // 20 s: in [15 s, 30 s)
	o := outcome(t, h.event(gen2), "job")
	wantOutcome(t, o, adapter.OpRecreate, adapter.StateDone, adapter.ReasonRecreated)
	wantCalls(t, h.calls(), "get x-config", "get x-job", "redelete x-job", "get x-job", "create x-job")
}

// lostDelete is a recreation whose first delete the agent lost: the
// bundle stays deleting, and the agent would confirm a second delete
// (memmaestro under DeleteImmediate). gen2 is the recreating event.
func lostDelete(t *testing.T) (h *harness, gen2 map[string]any) {
	t.Helper()
	h = newHarness(t, memmaestro.DeleteImmediate)
	h.store.SetStuck("c1", "x-job", true) // the agent loses the first delete
	h.event(nil)
	gen2 = map[string]any{"generation": int64(2), "recreate": true}
	wantOutcome(t, outcome(t, h.event(gen2), "job"), adapter.OpRecreate, adapter.StatePending, adapter.ReasonRecreationPending)
	h.store.SetStuck("c1", "x-job", false) // ... and would act on a second one
	return h, gen2
}
