package adapter_test

import (
	"testing"
	"time"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// Maestro's 404 for the old bundle arrives between two events: the next
// event creates the bundle, and reports it as the end of the recreation
// when its process saw the recreation pending; another process (replica,
// restart) has no such history and reports the create it made.
func TestRecreationEndBetweenEvents(t *testing.T) {
	tests := []struct {
		name     string
		reuse    bool
		stalled  bool // the recreation was seen stalled, not pending
		deleting bool // a delete rule ended the bundle's deletion instead
		op       adapter.Operation
		reason   string
	}{
		{name: "same process: recreate/done", reuse: true, op: adapter.OpRecreate, reason: adapter.ReasonRecreated},
		{name: "same process, seen stalled: recreate/done", reuse: true, stalled: true, op: adapter.OpRecreate, reason: adapter.ReasonRecreated},
		{name: "another process: create/done", op: adapter.OpCreate, reason: adapter.ReasonCreated},
		{name: "delete done in between: a later create is a create", reuse: true, deleting: true, op: adapter.OpCreate, reason: adapter.ReasonCreated},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, "")
			h.reuse = tt.reuse
			h.event(nil)
			gen2 := map[string]any{"generation": int64(2), "recreate": true}
			wantOutcome(t, outcome(t, h.event(gen2), "job"), adapter.OpRecreate, adapter.StatePending, adapter.ReasonRecreationPending)
			if tt.stalled {
				h.now = h.now.Add(6 * time.Minute)
				wantOutcome(t, outcome(t, h.event(gen2), "job"), adapter.OpRecreate, adapter.StateStalled, adapter.ReasonRecreationStalled)
			}
			h.store.ConfirmAll()
			if tt.deleting {
				wantOutcome(t, outcome(t, h.event(map[string]any{"deleting": true}), "job"), adapter.OpDelete, adapter.StateDone, adapter.ReasonDeleted)
			}
			res := h.event(gen2)
			wantOutcome(t, outcome(t, res, "job"), tt.op, adapter.StateDone, tt.reason)
			wantCalls(t, h.calls(), "get x-config", "get x-job", "create x-job")
		})
	}
}
