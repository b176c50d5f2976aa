package adapter_test

import (
	"testing"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// The lifecycle.create rows of the decision table and recreate_on_change
// (HyperFleet's resource-level recreate flag), on testdata/task-create-gate.yaml:
// "config" has a create gate, "job" has recreate_on_change: true.
func TestCreateGateAndRecreateOnChange(t *testing.T) {
	type fields = map[string]any
	tests := []struct {
		name    string
		setup   []fields
		event   fields
		bundle  string
		op      adapter.Operation
		state   adapter.State
		reason  string
		calls   []string
		skipped bool
	}{
		{
			name: "absent, create.when false: no write, skip", bundle: "config",
			op: adapter.OpSkip, state: adapter.StateDone, reason: adapter.ReasonSkipped,
			calls: []string{"get x-config", "get x-job", "create x-job"}, skipped: true,
		},
		{
			name: "absent, create.when true: create", bundle: "config", event: fields{"createConfig": true},
			op: adapter.OpCreate, state: adapter.StateDone, reason: adapter.ReasonCreated,
			calls: []string{"get x-config", "get x-job", "create x-config", "create x-job"},
		},
		{
			name: "absent, create.when fails: failed, nothing written", bundle: "config", event: fields{"failCreate": true},
			op: adapter.OpCreate, state: adapter.StateFailed, reason: adapter.ReasonRuleFailed,
			calls: []string{"get x-config", "get x-job", "create x-job"},
		},
		{
			name: "present, create.when false: the gate is not evaluated, unchanged", bundle: "config",
			setup: []fields{{"createConfig": true}}, event: fields{"failCreate": true},
			op: adapter.OpUnchanged, state: adapter.StateDone, reason: adapter.ReasonUnchanged,
			calls: []string{"get x-config", "get x-job"},
		},
		{
			name: "present, create.when false, fingerprint differs: update", bundle: "config",
			setup: []fields{{"createConfig": true}}, event: fields{"generation": int64(2)},
			op: adapter.OpUpdate, state: adapter.StateDone, reason: adapter.ReasonUpdated,
			calls: []string{"get x-config", "get x-job", "update x-config", "delete x-job", "get x-job"},
		},
		{
			name: "recreate_on_change, fingerprint differs: delete, read, pending", bundle: "job",
			setup: []fields{{}}, event: fields{"generation": int64(2)},
			op: adapter.OpRecreate, state: adapter.StatePending, reason: adapter.ReasonRecreationPending,
			calls: []string{"get x-config", "get x-job", "delete x-job", "get x-job"}, skipped: true,
		},
		{
			name: "recreate_on_change, fingerprint equal: unchanged", bundle: "job",
			setup: []fields{{}}, event: fields{},
			op: adapter.OpUnchanged, state: adapter.StateDone, reason: adapter.ReasonUnchanged,
			calls: []string{"get x-config", "get x-job"}, skipped: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, "")
			h.useTask("testdata/task-create-gate.yaml")
			for _, s := range tt.setup {
				if res := h.event(s); res.Err() != nil {
					t.Fatalf("setup event failed: %v", res.Err())
				}
			}
			res := h.event(tt.event)
			wantOutcome(t, outcome(t, res, tt.bundle), tt.op, tt.state, tt.reason)
			wantCalls(t, h.calls(), tt.calls...)
			if tt.state == adapter.StateFailed {
				return
			}
			if got := h.lastStatus()["skipped"]; got != tt.skipped {
				t.Errorf("adapter.resourcesSkipped = %v, want %v", got, tt.skipped)
			}
		})
	}
}
