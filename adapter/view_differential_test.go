package adapter_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/bundles"
	"github.com/bundle-adapter/bundle-adapter/config"
	"github.com/bundle-adapter/bundle-adapter/hyperfleetapi/apistub"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/memmaestro"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/view"
	"github.com/bundle-adapter/bundle-adapter/task"
)

// world is one Maestro with two replicas on it: A, the replica under test
// (with or without a view), and B, a replica without a view that writes
// behind A's back. stream plays Maestro's status broadcast to A's view.
type world struct {
	t      *testing.T
	now    *time.Time
	store  *memmaestro.Store
	view   *view.View // nil: A reads every event
	api    *apistub.Stub
	task   *task.TaskConfig
	status map[string]string            // consumer/name -> status last broadcast
	annots map[string]map[string]string // consumer/name -> annotations last broadcast
}

func newWorld(t *testing.T, now *time.Time, withView bool) *world {
	clock := func() time.Time { return *now }
	w := &world{t: t, now: now, api: apistub.New("v1", nil), status: map[string]string{},
		annots: map[string]map[string]string{},
		store:  memmaestro.New(memmaestro.Options{Clock: clock, AutoStatus: true, Consumers: []string{"c1"}})}
	task, err := config.LoadTaskConfig("testdata/task-view.yaml")
	if err != nil {
		t.Fatal(err)
	}
	w.task = task
	if withView {
		w.view = view.New(view.Options{MaxAge: time.Minute, Clock: clock})
		w.view.Subscribed()
	}
	return w
}

// run runs one event on replica A (b false) or B, and returns its result
// and the Maestro calls it made.
func (w *world) run(b bool, fields map[string]any) (*adapter.Result, []memmaestro.Call) {
	w.t.Helper()
	data := map[string]any{"id": "x", "kind": "Cluster", "generation": int64(1)}
	for k, v := range fields {
		data[k] = v
	}
	var m adapter.Maestro = w.store
	opts := adapter.Options{Task: w.task, Adapter: config.AdapterInfo{Name: "test-adapter", Version: "0"},
		API: w.api, Clock: func() time.Time { return *w.now }, LookupEnv: func(string) (string, bool) { return "", false }}
	if !b && w.view != nil {
		m = view.Maestro(w.store, w.view)
		opts.View = w.view
	}
	opts.Maestro = m
	p, err := adapter.New(opts)
	if err != nil {
		w.t.Fatal(err)
	}
	w.store.ResetCalls()
	res := p.Run(context.Background(), adapter.Event{ID: "ev", Type: "com.redhat.hyperfleet.cluster.reconcile", Source: "test", Data: data})
	calls := w.store.Calls()
	w.broadcast()
	return res, calls
}

// broadcast plays Maestro's status stream: every bundle whose status
// changed since the last broadcast, and a Deleted confirmation for every
// bundle gone since.
func (w *world) broadcast() {
	seen := map[string]bool{}
	for _, work := range w.store.Works() {
		k := work.Namespace + "/" + work.Name
		seen[k] = true
		st, _ := json.Marshal(work.Status)
		if w.status[k] == string(st) {
			continue
		}
		w.status[k] = string(st)
		w.annots[k] = work.Annotations
		if w.view != nil {
			// Maestro's stream does not carry deletionTimestamp: a
			// deletion shows only in the agent's conditions.
			work.DeletionTimestamp = nil
			w.view.Status(work)
		}
	}
	for k := range w.status {
		if seen[k] {
			continue
		}
		delete(w.status, k)
		annotations := w.annots[k]
		delete(w.annots, k)
		if w.view == nil {
			continue
		}
		// The agent's Deleted confirmation carries the metadata Maestro
		// kept, the fingerprint annotation among it
		// (maestroclient TestStatusStreamCarries).
		ns, name, _ := strings.Cut(k, "/")
		gone := &workv1.ManifestWork{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Annotations: annotations}}
		meta.SetStatusCondition(&gone.Status.Conditions, metav1.Condition{Type: "Deleted", Status: metav1.ConditionTrue, Reason: "Deleted"})
		w.view.Status(gone)
	}
}

// diffStep is one step of the story, applied to both worlds.
type diffStep struct {
	name    string
	replica string         // "A" (under test) or "B" (behind A's back)
	fields  map[string]any // event data
	agent   func(w *world) // what the agent does after the event (nil: nothing)
	advance time.Duration  // clock moved before the step
	resub   bool           // A's stream is lost and resubscribed before the step
	hit     bool           // A's event must make no Maestro request (view world)
	// ends: the create ends a recreation that this process did not see
	// pending; only the view's tombstone tells (recreate/done with the view,
	// create/done without), and only the view world's create names the
	// replaced fingerprint. Writes stay the same.
	ends bool
}

func writesOf(calls []memmaestro.Call) []string {
	var out []string
	for _, c := range calls {
		if c.Verb != memmaestro.VerbGet && c.Verb != memmaestro.VerbGetBundles {
			out = append(out, c.Verb+" "+c.Name)
		}
	}
	return out
}

func lastPut(api *apistub.Stub) any {
	calls := api.Calls()
	for i := len(calls) - 1; i >= 0; i-- {
		if calls[i].Method == "PUT" {
			return calls[i].Body
		}
	}
	return nil
}

func confirmAll(w *world) { w.store.ConfirmAll() }

func jobUnavailable(w *world) {
	work, err := w.store.Get(context.Background(), "c1", "x-job")
	if err != nil {
		w.t.Fatal(err)
	}
	st := work.Status.DeepCopy()
	meta.SetStatusCondition(&st.Conditions, metav1.Condition{Type: workv1.WorkAvailable, Status: metav1.ConditionFalse,
		Reason: "JobFailed", ObservedGeneration: work.Generation})
	if err := w.store.SetStatus("c1", "x-job", *st); err != nil {
		w.t.Fatal(err)
	}
}

// The view changes no write and no status report over a story
// through every decision, with a second replica writing behind the view's
// back, the agent changing status, the stream lost, and entries aging past
// the bound; and the unchanged events it serves make no Maestro request.
func TestViewDecidesAsReads(t *testing.T) {
	gen2 := map[string]any{"generation": int64(2)}
	rec2 := map[string]any{"generation": int64(2), "recreate": true}
	rec3 := map[string]any{"generation": int64(3), "recreate": true}
	gen3 := map[string]any{"generation": int64(3)}
	del := map[string]any{"generation": int64(3), "deleting": true}
	story := []diffStep{
		{name: "new cluster: both created", replica: "A"},
		{name: "unchanged: the agent's first status of its own creates made the entries", replica: "A", hit: true},
		{name: "unchanged: served by the view", replica: "A", hit: true},
		{name: "agent: job becomes unavailable; served with the stream's status", replica: "A", hit: true, agent: jobUnavailable, advance: 10 * time.Second},
		{name: "status seen", replica: "A", hit: true, advance: 10 * time.Second},
		{name: "B updates to generation 2", replica: "B", fields: gen2},
		{name: "stale generation-1 event on A: the stream told, read, update back", replica: "A"},
		{name: "B updates to generation 2 again", replica: "B", fields: gen2},
		{name: "generation 2 on A: read after the stream", replica: "A", fields: gen2},
		{name: "generation 2 on A: hit", replica: "A", fields: gen2, hit: true},
		{name: "past the bound: read", replica: "A", fields: gen2, advance: 2 * time.Minute},
		{name: "within the bound again: hit", replica: "A", fields: gen2, hit: true, advance: 5 * time.Second},
		{name: "stream lost and resubscribed: read", replica: "A", fields: gen2, resub: true},
		{name: "after resubscription: hit", replica: "A", fields: gen2, hit: true},
		{name: "B starts a recreation (generation 3)", replica: "B", fields: rec3},
		{name: "A with the same event: recreate pending, from a read", replica: "A", fields: rec3},
		{name: "A with an older event: still pending", replica: "A", fields: rec2, agent: confirmAll},
		{name: "deleted: A recreates", replica: "A", fields: rec3, ends: true},
		{name: "recreated: read (config was updated, which forgot it)", replica: "A", fields: gen3},
		{name: "recreated: hit", replica: "A", fields: gen3, hit: true},
		{name: "delete rule: read, delete", replica: "A", fields: del},
		{name: "deletion pending", replica: "A", fields: del, agent: confirmAll},
		{name: "gone", replica: "A", fields: del},
		{name: "gone, again", replica: "A", fields: del},
		{name: "cluster back: created", replica: "A", fields: gen3},
		{name: "cluster back: hit (the stream's status of its own create)", replica: "A", fields: gen3, hit: true},
		{name: "cluster back: hit", replica: "A", fields: gen3, hit: true},
		{name: "B deletes it (cluster deleting on B)", replica: "B", fields: del},
		{name: "A, not deleting: the stream's Deleting sends it to read: pending", replica: "A", fields: gen3, agent: confirmAll},
		{name: "A: created again", replica: "A", fields: gen3},
		{name: "A: hit after its own create", replica: "A", fields: gen3, hit: true},
	}
	now := t0
	off, on := newWorld(t, &now, false), newWorld(t, &now, true)
	hits := 0
	for _, s := range story {
		now = now.Add(s.advance)
		if s.resub {
			on.view.Subscribed()
		}
		b := s.replica == "B"
		wantRes, wantCalls := off.run(b, s.fields)
		gotRes, gotCalls := on.run(b, s.fields)
		wantOutcomes := fmt.Sprint(outcomes(wantRes))
		if s.ends {
			wantOutcomes = endsRecreation(t, s.name, wantOutcomes)
			checkReplaced(t, s.name, on, off)
		}
		if g := fmt.Sprint(outcomes(gotRes)); g != wantOutcomes {
			t.Errorf("%s: outcomes with view %s, want %s", s.name, g, wantOutcomes)
		}
		if g, w := fmt.Sprint(fingerprints(gotRes)), fmt.Sprint(fingerprints(wantRes)); g != w {
			t.Errorf("%s: fingerprints with view %s, without %s", s.name, g, w)
		}
		if g, w := writesOf(gotCalls), writesOf(wantCalls); fmt.Sprint(g) != fmt.Sprint(w) {
			t.Errorf("%s: writes with view %v, without %v", s.name, g, w)
		}
		if g, w := lastPut(on.api), lastPut(off.api); !s.ends && !reflect.DeepEqual(g, w) {
			gj, _ := json.Marshal(g)
			wj, _ := json.Marshal(w)
			t.Errorf("%s: status report with view\n %s\nwithout\n %s", s.name, gj, wj)
		}
		if !b {
			if s.hit && (len(gotCalls) != 0 || gotRes.View != adapter.ViewHit || gotRes.MaestroRequests != 0) {
				t.Errorf("%s: want a view hit without Maestro requests, got view %q, %d requests %v", s.name, gotRes.View, gotRes.MaestroRequests, gotCalls)
			}
			if !s.hit && gotRes.View == adapter.ViewHit {
				t.Errorf("%s: served by the view, want a read", s.name)
			}
			if gotRes.MaestroRequests != len(gotCalls) {
				t.Errorf("%s: MaestroRequests %d, calls %v", s.name, gotRes.MaestroRequests, gotCalls)
			}
		}
		if gotRes.View == adapter.ViewHit {
			hits++
		}
		t.Logf("%s: %v (view %q, %d requests)", s.name, outcomes(gotRes), gotRes.View, gotRes.MaestroRequests)
		for _, w := range []*world{off, on} {
			if s.agent != nil {
				s.agent(w)
			}
			w.broadcast()
		}
	}
	if hits == 0 {
		t.Fatal("the view served no event: the comparison proved nothing")
	}
}

// endsRecreation is outcomes (as printed) with its creates done turned into
// recreations done; it fails the test when there is none.
func endsRecreation(t *testing.T, step, outcomes string) string {
	t.Helper()
	created := fmt.Sprintf(":%s/%s/%s", adapter.OpCreate, adapter.StateDone, adapter.ReasonCreated)
	if !strings.Contains(outcomes, created) {
		t.Fatalf("%s: no create done without the view (%s): the step proves nothing", step, outcomes)
	}
	return strings.ReplaceAll(outcomes, created, fmt.Sprintf(":%s/%s/%s", adapter.OpRecreate, adapter.StateDone, adapter.ReasonRecreated))
}

// checkReplaced: after a create that ends a recreation, the view world's
// bundles name the fingerprint they replaced and the other world's do not.
func checkReplaced(t *testing.T, step string, on, off *world) {
	t.Helper()
	named := 0
	for _, w := range on.store.Works() {
		if w.Annotations[bundles.ReplacedAnnotation] != "" {
			named++
		}
	}
	if named == 0 {
		t.Errorf("%s: no bundle names the fingerprint it replaced (%s)", step, bundles.ReplacedAnnotation)
	}
	for _, w := range off.store.Works() {
		if v := w.Annotations[bundles.ReplacedAnnotation]; v != "" {
			t.Errorf("%s: without the view %s/%s names %s %q: nothing told it", step, w.Namespace, w.Name, bundles.ReplacedAnnotation, v)
		}
	}
}

func fingerprints(res *adapter.Result) []string {
	var out []string
	for _, o := range res.Bundles {
		out = append(out, o.Fingerprint)
	}
	return out
}
