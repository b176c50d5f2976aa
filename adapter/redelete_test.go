package adapter_test

import (
	"testing"
	"time"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/memmaestro"
)

// A deletion the agent never confirms, with events every interval for an
// hour: each harness event is a fresh pipeline (a restart, or the other
// replica), so nothing but the bundle in Maestro carries over. The delete is
// sent again only in the windows of attempts 1..3 (job: deadline 5m, window
// 15s), at most once per event in a window, never after the last window,
// and nothing is ever created while the old bundle exists.
func TestRedeletesAreBounded(t *testing.T) {
	tests := []struct {
		name       string
		interval   time.Duration // Sentinel's resend interval
		offset     time.Duration // first event after the deletion
		perAttempt int           // events in one 15s window
	}{
		{"10s, windows hold two events", 10 * time.Second, 3 * time.Second, 2},
		{"5s, windows hold three events", 5 * time.Second, 0, 3},
		{"15s, windows hold one event", 15 * time.Second, 0, 1},
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
			want := map[int]int{1: tt.perAttempt, 2: tt.perAttempt, 3: tt.perAttempt}
			if len(perAttempt) != len(want) || perAttempt[1] != want[1] || perAttempt[2] != want[2] || perAttempt[3] != want[3] {
				t.Errorf("re-sent deletes by period = %v, want %v", perAttempt, want)
			}
		})
	}
}

// An agent that lost the deletion confirms the re-sent delete (memmaestro
// under DeleteImmediate removes a work on Redelete once it is no longer held):
// Maestro answers 404 in the same pass and the recreation completes at once.
// Before the deadline nothing is sent again however long the agent takes.
func TestRedeleteHealsALostDeletion(t *testing.T) {
	h := newHarness(t, memmaestro.DeleteImmediate)
	h.store.SetStuck("c1", "x-job", true) // the agent loses the first delete
	h.event(nil)
	gen2 := map[string]any{"generation": int64(2), "recreate": true}
	wantOutcome(t, outcome(t, h.event(gen2), "job"), adapter.OpRecreate, adapter.StatePending, adapter.ReasonRecreationPending)
	h.store.SetStuck("c1", "x-job", false) // ... and would act on a second one

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
