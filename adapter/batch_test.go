package adapter_test

import (
	"fmt"
	"testing"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/memmaestro"
)

// batchStep is one event of a story, and what the agent does after it.
type batchStep struct {
	name    string
	fields  map[string]any
	confirm bool // the agent confirms pending deletions after the event
}

// A story through every decision with a boundary that reads in batches
// gives exactly the outcomes and writes of one Get per bundle, and each
// event's discovery reads Maestro once.
func TestBatchReadsDecideAlike(t *testing.T) {
	story := []batchStep{
		{name: "new cluster: both created"},
		{name: "unchanged"},
		{name: "recreation requested: delete", fields: map[string]any{"recreate": true, "generation": int64(2)}},
		{name: "deletion pending", fields: map[string]any{"recreate": true, "generation": int64(2)}, confirm: true},
		{name: "deleted: created again", fields: map[string]any{"generation": int64(2)}},
		{name: "cluster deleting: both deleted", fields: map[string]any{"deleting": true, "generation": int64(2)}},
		{name: "deletions pending", fields: map[string]any{"deleting": true, "generation": int64(2)}, confirm: true},
		{name: "both gone", fields: map[string]any{"deleting": true, "generation": int64(2)}},
	}
	single, batch := newHarness(t, ""), newHarness(t, "")
	batch.batch = true
	for _, step := range story {
		want, got := single.event(step.fields), batch.event(step.fields)
		t.Logf("%s: %v", step.name, outcomes(want))
		if fmt.Sprint(outcomes(got)) != fmt.Sprint(outcomes(want)) {
			t.Errorf("%s: batch outcomes %v, one Get each %v", step.name, outcomes(got), outcomes(want))
		}
		if w, g := writeCalls(single), writeCalls(batch); fmt.Sprint(g) != fmt.Sprint(w) {
			t.Errorf("%s: batch writes %v, one Get each %v", step.name, g, w)
		}
		// Discovery is one get_bundles instead of a get per bundle; the
		// reads after a write (a delete's follow-up) stay gets.
		wantReads := append([]string{memmaestro.VerbGetBundles + " x-config,x-job"}, readCalls(single)[2:]...)
		if got := readCalls(batch); fmt.Sprint(got) != fmt.Sprint(wantReads) {
			t.Errorf("%s: batch reads %v, want %v", step.name, got, wantReads)
		}
		if step.confirm {
			single.store.ConfirmAll()
			batch.store.ConfirmAll()
		}
	}
}

// A failed batch read fails every bundle it was for, writes nothing, and
// the event is retried.
func TestBatchReadFailureFailsEveryBundle(t *testing.T) {
	h := newHarness(t, "")
	h.batch = true
	h.store.FailNext(memmaestro.VerbGetBundles, 1, adapter.ErrUnavailable)
	res := h.event(nil)
	for _, o := range res.Bundles {
		wantOutcome(t, o, "", adapter.StateFailed, adapter.ReasonMaestroUnavailable)
	}
	if h.writes() != 0 {
		t.Errorf("nothing may be written without an authoritative read: %v", h.calls())
	}
	if res.Disposition() != adapter.Retry || !res.Transient() {
		t.Errorf("want a transient retry, got %v transient=%v", res.Disposition(), res.Transient())
	}
}

func outcomes(res *adapter.Result) []string {
	var out []string
	for _, o := range res.Bundles {
		out = append(out, fmt.Sprintf("%s:%s/%s/%s", o.Name, o.Operation, o.State, o.Reason))
	}
	return out
}

func writeCalls(h *harness) []string { return filterCalls(h, false) }
func readCalls(h *harness) []string  { return filterCalls(h, true) }

func filterCalls(h *harness, reads bool) []string {
	var out []string
	for _, c := range h.store.Calls() {
		isRead := c.Verb == memmaestro.VerbGet || c.Verb == memmaestro.VerbGetBundles
		if isRead == reads {
			out = append(out, c.Verb+" "+c.Name)
		}
	}
	return out
}
