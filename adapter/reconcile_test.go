package adapter_test

import (
	"strings"
	"testing"
	"time"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/memmaestro"
)

// Every row of the decision table (docs/architecture.md, "The decision"), with the
// Maestro calls it must make and nothing more.
func TestDecisionTable(t *testing.T) {
	type step struct {
		fields map[string]any
		after  time.Duration // clock advance before the event
	}
	tests := []struct {
		name     string
		behavior string
		setup    []step // events run first to build the observed state
		confirm  bool   // agent confirms pending deletions after setup
		event    step
		bundle   string
		op       adapter.Operation
		state    adapter.State
		reason   string
		calls    []string
		// redeletes is the outcome's count of deletes sent again (the
		// prompt re-send and the escalation).
		redeletes int
	}{
		{
			name: "absent: create", bundle: "job",
			op: adapter.OpCreate, state: adapter.StateDone, reason: adapter.ReasonCreated,
			calls: []string{"get x-config", "get x-job", "create x-config", "create x-job"},
		},
		{
			name: "present, fingerprint equal: no write", bundle: "job",
			setup: []step{{}}, event: step{after: time.Minute},
			op: adapter.OpUnchanged, state: adapter.StateDone, reason: adapter.ReasonUnchanged,
			calls: []string{"get x-config", "get x-job"},
		},
		{
			name: "present, fingerprint differs, recreate false: update in place", bundle: "job",
			setup: []step{{}}, event: step{fields: map[string]any{"generation": int64(2)}},
			op: adapter.OpUpdate, state: adapter.StateDone, reason: adapter.ReasonUpdated,
			calls: []string{"get x-config", "get x-job", "update x-config", "update x-job"},
		},
		{
			name: "present, fingerprint differs, recreate true: delete, read, pending", bundle: "job",
			setup: []step{{}}, event: step{fields: map[string]any{"generation": int64(2), "recreate": true}},
			op: adapter.OpRecreate, state: adapter.StatePending, reason: adapter.ReasonRecreationPending,
			calls: []string{"get x-config", "get x-job", "update x-config", "delete x-job", "get x-job"},
		},
		{
			name: "recreate true and 404 right after delete: create in the same pass", behavior: memmaestro.DeleteImmediate, bundle: "job",
			setup: []step{{}}, event: step{fields: map[string]any{"generation": int64(2), "recreate": true}},
			op: adapter.OpRecreate, state: adapter.StateDone, reason: adapter.ReasonRecreated,
			calls: []string{"get x-config", "get x-job", "update x-config", "delete x-job", "get x-job", "create x-job"},
		},
		{
			name: "present, deleting: no write, never create while the old one exists", bundle: "job",
			setup: []step{{}, {fields: map[string]any{"generation": int64(2), "recreate": true}}},
			event: step{fields: map[string]any{"generation": int64(2), "recreate": true}, after: 90 * time.Second},
			op:    adapter.OpRecreate, state: adapter.StatePending, reason: adapter.ReasonRecreationPending,
			calls: []string{"get x-config", "get x-job"}, redeletes: 1,
		},
		{
			name: "present, deleting, not confirmed one window after the delete: delete again once, read", bundle: "job",
			setup: []step{{}, {fields: map[string]any{"generation": int64(2), "recreate": true}}},
			event: step{fields: map[string]any{"generation": int64(2), "recreate": true}, after: 20 * time.Second},
			op:    adapter.OpRecreate, state: adapter.StatePending, reason: adapter.ReasonRecreationPending,
			calls: []string{"get x-config", "get x-job", "redelete x-job", "get x-job"}, redeletes: 1,
		},
		{
			name: "present, deleting, before the prompt window: no write", bundle: "job",
			setup: []step{{}, {fields: map[string]any{"generation": int64(2), "recreate": true}}},
			event: step{fields: map[string]any{"generation": int64(2), "recreate": true}, after: 14 * time.Second},
			op:    adapter.OpRecreate, state: adapter.StatePending, reason: adapter.ReasonRecreationPending,
			calls: []string{"get x-config", "get x-job"},
		},
		{
			name: "present, deleting past deletion_deadline: stalled", bundle: "job",
			setup: []step{{}, {fields: map[string]any{"generation": int64(2), "recreate": true}}},
			event: step{fields: map[string]any{"generation": int64(2), "recreate": true}, after: 6 * time.Minute},
			op:    adapter.OpRecreate, state: adapter.StateStalled, reason: adapter.ReasonRecreationStalled,
			calls: []string{"get x-config", "get x-job"}, redeletes: 2,
		},
		{
			name: "present, deleting past deletion_deadline, in a re-delete window: delete again, read", bundle: "job",
			setup: []step{{}, {fields: map[string]any{"generation": int64(2), "recreate": true}}},
			event: step{fields: map[string]any{"generation": int64(2), "recreate": true}, after: 5*time.Minute + 5*time.Second},
			op:    adapter.OpRecreate, state: adapter.StateStalled, reason: adapter.ReasonRecreationStalled,
			calls: []string{"get x-config", "get x-job", "redelete x-job", "get x-job"}, redeletes: 2,
		},
		{
			name: "present, deleting, past the last attempt's window: no write", bundle: "job",
			setup: []step{{}, {fields: map[string]any{"generation": int64(2), "recreate": true}}},
			event: step{fields: map[string]any{"generation": int64(2), "recreate": true}, after: 20*time.Minute + 5*time.Second},
			op:    adapter.OpRecreate, state: adapter.StateStalled, reason: adapter.ReasonRecreationStalled,
			calls: []string{"get x-config", "get x-job"}, redeletes: 4,
		},
		{
			name: "delete rule while deleting past deletion_deadline, in a re-delete window: delete again, read", bundle: "job",
			setup: []step{{}, {fields: map[string]any{"deleting": true}}},
			event: step{fields: map[string]any{"deleting": true}, after: 10*time.Minute + 5*time.Second},
			op:    adapter.OpDelete, state: adapter.StateStalled, reason: adapter.ReasonDeletionStalled,
			calls:     []string{"get x-config", "get x-job", "redelete x-config", "get x-config", "redelete x-job", "get x-job"},
			redeletes: 2,
		},
		{
			name: "deleted by the agent: the next event creates", bundle: "job",
			setup:   []step{{}, {fields: map[string]any{"generation": int64(2), "recreate": true}}},
			confirm: true,
			event:   step{fields: map[string]any{"generation": int64(2), "recreate": true}},
			op:      adapter.OpCreate, state: adapter.StateDone, reason: adapter.ReasonCreated,
			calls: []string{"get x-config", "get x-job", "create x-job"},
		},
		{
			name: "recreate rule true on an absent bundle: create", bundle: "job",
			event: step{fields: map[string]any{"recreate": true}},
			op:    adapter.OpCreate, state: adapter.StateDone, reason: adapter.ReasonCreated,
			calls: []string{"get x-config", "get x-job", "create x-config", "create x-job"},
		},
		{
			name: "delete rule on a present bundle: delete, read, pending", bundle: "job",
			setup: []step{{}}, event: step{fields: map[string]any{"deleting": true}},
			op: adapter.OpDelete, state: adapter.StatePending, reason: adapter.ReasonDeletionPending,
			calls: []string{"get x-config", "get x-job", "delete x-config", "get x-config", "delete x-job", "get x-job"},
		},
		{
			name: "delete rule and 404 after delete: done", behavior: memmaestro.DeleteImmediate, bundle: "job",
			setup: []step{{}}, event: step{fields: map[string]any{"deleting": true}},
			op: adapter.OpDelete, state: adapter.StateDone, reason: adapter.ReasonDeleted,
			calls: []string{"get x-config", "get x-job", "delete x-config", "get x-config", "delete x-job", "get x-job"},
		},
		{
			name: "delete rule while already deleting, past the prompt window: no second delete", bundle: "job",
			setup: []step{{}, {fields: map[string]any{"deleting": true}}},
			event: step{fields: map[string]any{"deleting": true}, after: 30 * time.Second},
			op:    adapter.OpDelete, state: adapter.StatePending, reason: adapter.ReasonDeletionPending,
			calls: []string{"get x-config", "get x-job"}, redeletes: 1,
		},
		{
			name: "delete rule while already deleting, in the prompt window: delete again once, read", bundle: "job",
			setup: []step{{}, {fields: map[string]any{"deleting": true}}},
			event: step{fields: map[string]any{"deleting": true}, after: 15 * time.Second},
			op:    adapter.OpDelete, state: adapter.StatePending, reason: adapter.ReasonDeletionPending,
			calls: []string{"get x-config", "get x-job", "redelete x-config", "get x-config", "redelete x-job", "get x-job"}, redeletes: 1,
		},
		{
			name: "delete rule on an absent bundle: done, no write", bundle: "job",
			event: step{fields: map[string]any{"deleting": true}},
			op:    adapter.OpDelete, state: adapter.StateDone, reason: adapter.ReasonDeleted,
			calls: []string{"get x-config", "get x-job"},
		},
		{
			name: "recreate while already deleting: no second delete", bundle: "job",
			setup: []step{{}, {fields: map[string]any{"generation": int64(2), "recreate": true}}},
			event: step{fields: map[string]any{"generation": int64(3), "recreate": true}},
			op:    adapter.OpRecreate, state: adapter.StatePending, reason: adapter.ReasonRecreationPending,
			calls: []string{"get x-config", "get x-job", "update x-config"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, tt.behavior)
			for _, s := range tt.setup {
				h.now = h.now.Add(s.after)
				if res := h.event(s.fields); res.Err() != nil {
					t.Fatalf("setup event failed: %v", res.Err())
				}
			}
			if tt.confirm {
				h.store.ConfirmAll()
			}
			h.now = h.now.Add(tt.event.after)
			res := h.event(tt.event.fields)
			if res.Err() != nil {
				t.Fatalf("event failed: %v", res.Err())
			}
			o := outcome(t, res, tt.bundle)
			wantOutcome(t, o, tt.op, tt.state, tt.reason)
			wantCalls(t, h.calls(), tt.calls...)
			if o.Redeletes != tt.redeletes {
				t.Errorf("redeletes = %d, want %d", o.Redeletes, tt.redeletes)
			}
		})
	}
}

// delete.when beats recreate.when, and recreate.when is not even evaluated:
// the recreate rule here fails whenever it is evaluated.
func TestDeleteBeatsRecreateWithoutEvaluatingIt(t *testing.T) {
	h := newHarness(t, memmaestro.DeleteImmediate)
	h.event(nil)
	res := h.event(map[string]any{"generation": int64(2), "deleting": true, "failRecreate": true})
	if res.Err() != nil {
		t.Fatalf("the recreate rule was evaluated: %v", res.Err())
	}
	wantOutcome(t, outcome(t, res, "job"), adapter.OpDelete, adapter.StateDone, adapter.ReasonDeleted)
	if got := h.condition("Finalized"); !strings.HasPrefix(got, "True") {
		t.Errorf("Finalized = %q, want True once Maestro answers 404", got)
	}

	// Proof that the rule does fail when it is evaluated.
	h2 := newHarness(t, "")
	h2.event(nil)
	res = h2.event(map[string]any{"generation": int64(2), "failRecreate": true})
	if o := outcome(t, res, "job"); o.State != adapter.StateFailed || o.Reason != adapter.ReasonRuleFailed {
		t.Errorf("a failing recreate rule must fail the bundle, got %+v", o)
	}
}

// A recreate is finished when the observed bundle carries the desired
// fingerprint: the same event again is unchanged, however often it comes.
func TestRecreateDoesNotLoop(t *testing.T) {
	h := newHarness(t, memmaestro.DeleteImmediate)
	h.event(nil)
	gen2 := map[string]any{"generation": int64(2), "recreate": true}
	wantOutcome(t, outcome(t, h.event(gen2), "job"), adapter.OpRecreate, adapter.StateDone, adapter.ReasonRecreated)
	for i := 0; i < 3; i++ {
		res := h.event(gen2)
		wantOutcome(t, outcome(t, res, "job"), adapter.OpUnchanged, adapter.StateDone, adapter.ReasonUnchanged)
		if h.writes() != 0 {
			t.Fatalf("event %d after the recreate wrote to Maestro: %v", i+1, h.calls())
		}
	}
}

// A template change changes the fingerprint even when the generation did
// not: the bundle is updated in place.
func TestTemplateChangeSameGenerationUpdates(t *testing.T) {
	h := newHarness(t, "")
	first := outcome(t, h.event(nil), "config")
	h.useTask("testdata/task-v2.yaml")
	res := h.event(nil)
	o := outcome(t, res, "config")
	wantOutcome(t, o, adapter.OpUpdate, adapter.StateDone, adapter.ReasonUpdated)
	if o.Fingerprint == first.Fingerprint {
		t.Error("a template change must change the fingerprint")
	}
	wantCalls(t, h.calls(), "get x-config", "get x-job", "update x-config")
}

// The desired fingerprint is reported while a recreation is pending, although
// nothing is rendered for a write then.
func TestPendingRecreationReportsDesiredFingerprint(t *testing.T) {
	h := newHarness(t, "")
	h.event(nil)
	gen2 := map[string]any{"generation": int64(2), "recreate": true}
	first := outcome(t, h.event(gen2), "job")
	again := outcome(t, h.event(gen2), "job")
	wantOutcome(t, again, adapter.OpRecreate, adapter.StatePending, adapter.ReasonRecreationPending)
	if again.Fingerprint == "" || again.Fingerprint != first.Fingerprint {
		t.Errorf("fingerprint while pending = %q, want the desired one %q", again.Fingerprint, first.Fingerprint)
	}
}
