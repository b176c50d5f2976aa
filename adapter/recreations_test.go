package adapter_test

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/bundles"
	"github.com/bundle-adapter/bundle-adapter/config"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/memmaestro"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/view"
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

// replica is one adapter process on the harness's Maestro: its pipeline
// (every event of the replica runs on it) and its view, nil when off.
type replica struct {
	p    *adapter.Pipeline
	view *view.View
}

func (h *harness) replica(withView bool) *replica {
	h.t.Helper()
	var m adapter.Maestro = oneGetEach{h.store}
	opts := adapter.Options{Task: h.task, Adapter: config.AdapterInfo{Name: "test-adapter", Version: "0"},
		API: h.api, Clock: h.clock, LookupEnv: func(string) (string, bool) { return "", false }, Logger: h.logger()}
	r := &replica{}
	if withView {
		r.view = view.New(view.Options{Clock: h.clock})
		r.view.Subscribed()
		m = view.Maestro(m, r.view)
		opts.View = r.view
	}
	opts.Maestro = m
	p, err := adapter.New(opts)
	if err != nil {
		h.t.Fatal(err)
	}
	r.p = p
	return r
}

// confirmDeletions makes the agent confirm every pending deletion and plays
// each confirmation on the status stream to the replicas' views, as
// Maestro broadcasts it: the bundle's metadata as last held (annotations,
// hence its fingerprint, included; no deletionTimestamp) with Deleted.
func (h *harness) confirmDeletions(replicas ...*replica) {
	h.t.Helper()
	for _, w := range h.store.Works() {
		if w.DeletionTimestamp == nil {
			continue
		}
		if err := h.store.Confirm(w.Namespace, w.Name); err != nil {
			h.t.Fatal(err)
		}
		w.DeletionTimestamp = nil
		meta.SetStatusCondition(&w.Status.Conditions, metav1.Condition{Type: "Deleted", Status: metav1.ConditionTrue, Reason: "Deleted"})
		for _, r := range replicas {
			if r.view != nil {
				r.view.Status(w.DeepCopy())
			}
		}
	}
}

// replacedOf is the ReplacedAnnotation of bundle name in Maestro.
func (h *harness) replacedOf(name string) string {
	h.t.Helper()
	for _, w := range h.store.Works() {
		if w.Name == name {
			return w.Annotations[bundles.ReplacedAnnotation]
		}
	}
	h.t.Fatalf("no bundle %s in Maestro", name)
	return ""
}

// Replica A starts a recreation and sees it pending; the agent confirms the
// deletion between two events, and the next event, on A or on replica B
// that never saw the recreation pending, finds the bundle absent and
// creates it. The create ends the recreation when the observed history
// says so: A's own memory, or the Deleted confirmation on the stream that
// every replica's view keeps (a tombstone). Then the outcome is
// recreate/done and the new bundle names the fingerprint it replaced; the
// writes are the same, and the new bundle's next event is unchanged.
func TestRecreationEndFromObservedHistory(t *testing.T) {
	tests := []struct {
		name    string
		aView   bool
		creator string // "A" or "B"
		bView   bool
		resub   bool          // the creator's stream is resubscribed after the confirmation
		advance time.Duration // between the confirmation and the create
		op      adapter.Operation
		reason  string
		named   bool // the new bundle names A's old fingerprint
	}{
		{name: "B with the view: recreate/done, names A's fingerprint", aView: true, creator: "B", bView: true,
			op: adapter.OpRecreate, reason: adapter.ReasonRecreated, named: true},
		{name: "B with the view, A without: the stream tells B", creator: "B", bView: true,
			op: adapter.OpRecreate, reason: adapter.ReasonRecreated, named: true},
		{name: "B with the view at the bound: recreate/done", aView: true, creator: "B", bView: true, advance: adapter.RecreationMemory,
			op: adapter.OpRecreate, reason: adapter.ReasonRecreated, named: true},
		{name: "B without the view: create/done, as before", aView: true, creator: "B",
			op: adapter.OpCreate, reason: adapter.ReasonCreated},
		{name: "B's stream resubscribed since: create/done", aView: true, creator: "B", bView: true, resub: true,
			op: adapter.OpCreate, reason: adapter.ReasonCreated},
		{name: "B, confirmation past the bound: create/done", aView: true, creator: "B", bView: true, advance: adapter.RecreationMemory + time.Second,
			op: adapter.OpCreate, reason: adapter.ReasonCreated},
		{name: "A without the view (its memory): recreate/done, names its old fingerprint", creator: "A",
			op: adapter.OpRecreate, reason: adapter.ReasonRecreated, named: true},
		{name: "A with the view, resubscribed (its memory): recreate/done", aView: true, creator: "A", resub: true,
			op: adapter.OpRecreate, reason: adapter.ReasonRecreated, named: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, "")
			a := h.replica(tt.aView)
			b := h.replica(tt.bView)
			creator := map[string]*replica{"A": a, "B": b}[tt.creator]
			oldFP := outcome(t, h.eventOn(a.p, nil), "job").Fingerprint
			gen2 := map[string]any{"generation": int64(2), "recreate": true}
			wantOutcome(t, outcome(t, h.eventOn(a.p, gen2), "job"), adapter.OpRecreate, adapter.StatePending, adapter.ReasonRecreationPending)
			h.confirmDeletions(a, b)
			h.now = h.now.Add(tt.advance)
			if tt.resub && creator.view != nil {
				creator.view.Subscribed()
			}

			o := outcome(t, h.eventOn(creator.p, gen2), "job")
			wantOutcome(t, o, tt.op, adapter.StateDone, tt.reason)
			wantCalls(t, h.calls(), "get x-config", "get x-job", "create x-job")
			want := ""
			if tt.named {
				want = oldFP
			}
			if got := h.replacedOf("x-job"); got != want {
				t.Errorf("%s = %q, want %q", bundles.ReplacedAnnotation, got, want)
			}
			if o.Fingerprint == oldFP {
				t.Fatal("the story needs a recreation to another fingerprint")
			}

			for _, r := range []*replica{creator, a, b} {
				wantOutcome(t, outcome(t, h.eventOn(r.p, gen2), "job"), adapter.OpUnchanged, adapter.StateDone, adapter.ReasonUnchanged)
				if h.writes() != 0 {
					t.Errorf("the new bundle's next event wrote: %v", h.calls())
				}
			}
		})
	}
}

// A create that no observed history ties to a recreation stays a create,
// without the annotation, with the view on: a new cluster, and a bundle
// the delete rule removed (its deletion confirmed on the stream) created
// again with the same fingerprint.
func TestCreateWithoutRecreationHistory(t *testing.T) {
	tests := []struct {
		name  string
		story func(h *harness, a, b *replica)
	}{
		{"new cluster", func(*harness, *replica, *replica) {}},
		{"deleted by the delete rule, created again unchanged", func(h *harness, a, b *replica) {
			h.eventOn(a.p, nil)
			del := map[string]any{"deleting": true}
			wantOutcome(t, outcome(t, h.eventOn(a.p, del), "job"), adapter.OpDelete, adapter.StatePending, adapter.ReasonDeletionPending)
			h.confirmDeletions(a, b)
			wantOutcome(t, outcome(t, h.eventOn(a.p, del), "job"), adapter.OpDelete, adapter.StateDone, adapter.ReasonDeleted)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, "")
			a, b := h.replica(true), h.replica(true)
			tt.story(h, a, b)
			wantOutcome(t, outcome(t, h.eventOn(b.p, nil), "job"), adapter.OpCreate, adapter.StateDone, adapter.ReasonCreated)
			if got := h.replacedOf("x-job"); got != "" {
				t.Errorf("%s = %q on a plain create", bundles.ReplacedAnnotation, got)
			}
		})
	}
}

// A recreation whose 404 comes within its own event creates the new bundle
// naming the fingerprint it replaced, and the next event is unchanged.
func TestRecreationInOneEventNamesTheReplaced(t *testing.T) {
	h := newHarness(t, memmaestro.DeleteImmediate)
	oldFP := outcome(t, h.event(nil), "job").Fingerprint
	gen2 := map[string]any{"generation": int64(2), "recreate": true}
	wantOutcome(t, outcome(t, h.event(gen2), "job"), adapter.OpRecreate, adapter.StateDone, adapter.ReasonRecreated)
	if got := h.replacedOf("x-job"); got != oldFP {
		t.Errorf("%s = %q, want %q", bundles.ReplacedAnnotation, got, oldFP)
	}
	wantOutcome(t, outcome(t, h.event(gen2), "job"), adapter.OpUnchanged, adapter.StateDone, adapter.ReasonUnchanged)
	if h.writes() != 0 {
		t.Errorf("the new bundle's next event wrote: %v", h.calls())
	}
}

// A create that would end a recreation and fails reports the create that
// failed, as before; the tombstone stays, and the next event's create
// ends the recreation.
func TestFailedCreateAfterRecreationStaysACreate(t *testing.T) {
	h := newHarness(t, "")
	a, b := h.replica(true), h.replica(true)
	oldFP := outcome(t, h.eventOn(a.p, nil), "job").Fingerprint
	gen2 := map[string]any{"generation": int64(2), "recreate": true}
	wantOutcome(t, outcome(t, h.eventOn(a.p, gen2), "job"), adapter.OpRecreate, adapter.StatePending, adapter.ReasonRecreationPending)
	h.confirmDeletions(a, b)
	h.store.FailNext(memmaestro.VerbCreate, 1, adapter.ErrUnavailable)
	wantOutcome(t, outcome(t, h.eventOn(b.p, gen2), "job"), adapter.OpCreate, adapter.StateFailed, adapter.ReasonMaestroUnavailable)
	wantOutcome(t, outcome(t, h.eventOn(b.p, gen2), "job"), adapter.OpRecreate, adapter.StateDone, adapter.ReasonRecreated)
	if got := h.replacedOf("x-job"); got != oldFP {
		t.Errorf("%s = %q, want %q", bundles.ReplacedAnnotation, got, oldFP)
	}
}
