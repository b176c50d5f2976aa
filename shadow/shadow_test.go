package shadow_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/bundles"
	"github.com/bundle-adapter/bundle-adapter/config"
	"github.com/bundle-adapter/bundle-adapter/hyperfleetapi/apistub"
	"github.com/bundle-adapter/bundle-adapter/kubeclient/memkube"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/memmaestro"
	"github.com/bundle-adapter/bundle-adapter/shadow"
)

var t0 = time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)

func clock() time.Time { return t0 }

// fleet is the live side: the in-memory Maestro, API server and HyperFleet
// API that the live adapter wrote to.
type fleet struct {
	t     *testing.T
	store *memmaestro.Store
	kube  *memkube.Store
	api   *apistub.Stub
	// statuses is what the live adapter last reported, by cluster id.
	statuses map[string]json.RawMessage
}

func newFleet(t *testing.T) *fleet {
	t.Helper()
	return &fleet{t: t, api: apistub.New("v1", nil), statuses: map[string]json.RawMessage{},
		store: memmaestro.New(memmaestro.Options{Clock: clock, DeleteBehavior: "pending", Consumers: []string{"c1"}}),
		kube:  memkube.New(memkube.Options{Clock: clock})}
}

func event(id string, fields map[string]any) adapter.Event {
	data := map[string]any{"id": id, "kind": "Cluster", "generation": int64(1)}
	for k, v := range fields {
		data[k] = v
	}
	return adapter.Event{ID: "ev-" + id, Type: "com.redhat.hyperfleet.cluster.reconcile", Source: "test", Data: data}
}

func (f *fleet) pipeline(taskFile string, m adapter.Maestro, k adapter.Kube, api adapter.API) *adapter.Pipeline {
	f.t.Helper()
	tc, err := config.LoadTaskConfig(taskFile)
	if err != nil {
		f.t.Fatal(err)
	}
	o := adapter.Options{Task: tc, Adapter: config.AdapterInfo{Name: "test-adapter", Version: "0"},
		API: api, Clock: clock, LookupEnv: func(string) (string, bool) { return "", false },
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	if m != nil {
		o.Maestro = m
	}
	if k != nil {
		o.Kube = k
	}
	p, err := adapter.New(o)
	if err != nil {
		f.t.Fatal(err)
	}
	return p
}

// live runs ev as the live adapter: it writes, and the status it reports
// is what the API then holds for it.
func (f *fleet) live(taskFile string, ev adapter.Event) {
	f.t.Helper()
	var m adapter.Maestro
	var k adapter.Kube
	if strings.Contains(taskFile, "kube") {
		k = f.kube
	} else {
		m = f.store
	}
	api := apistub.New("v1", nil)
	res := f.pipeline(taskFile, m, k, api).Run(context.Background(), ev)
	if res.Error != nil {
		f.t.Fatalf("live %s: %v", ev.ID, res.Error)
	}
	for _, c := range api.Calls() {
		if c.Method == "PUT" && strings.HasSuffix(c.Path, "/statuses") {
			f.statuses[ev.Data["id"].(string)] = c.RawBody()
		}
	}
}

// restub is a new stub answering GET …/statuses with the reported ones.
func (f *fleet) restub() *apistub.Stub {
	resp := map[string]apistub.Response{}
	for id, s := range f.statuses {
		var item map[string]any
		if err := json.Unmarshal(s, &item); err != nil {
			f.t.Fatal(err)
		}
		if item["adapter"] == nil {
			item["adapter"] = "test-adapter" // the API stores every status under its adapter
		}
		body, _ := json.Marshal(map[string]any{"kind": "AdapterStatusList", "items": []any{item}})
		resp["GET /api/hyperfleet/v1/clusters/"+id+"/statuses"] = apistub.Response{Status: 200, Body: body}
	}
	return apistub.New("v1", resp)
}

// handMade strips this adapter's annotations from every bundle and object:
// what hyperfleet-adapter-like writers leave, with the same content.
func (f *fleet) handMade(ids ...string) {
	f.t.Helper()
	ctx := context.Background()
	made := memmaestro.New(memmaestro.Options{Clock: clock, DeleteBehavior: "pending", Consumers: []string{"c1"}})
	for _, id := range ids {
		for _, name := range []string{id + "-config", id + "-job"} {
			w, err := f.store.Get(ctx, "c1", name)
			if err != nil {
				continue // the kubernetes task has no bundles
			}
			w = w.DeepCopy()
			delete(w.Annotations, bundles.FingerprintAnnotation)
			w.ResourceVersion, w.UID, w.Generation = "", "", 0
			w.Status = workv1.ManifestWorkStatus{}
			if _, err := made.Create(ctx, "c1", w, adapter.Unread); err != nil {
				f.t.Fatal(err)
			}
		}
	}
	f.store = made
	for _, o := range f.kube.Objects() {
		o = o.DeepCopy()
		a := o.GetAnnotations()
		delete(a, bundles.FingerprintAnnotation)
		if a == nil {
			a = map[string]string{}
		}
		a["hyperfleet.io/generation"] = "1"
		o.SetAnnotations(a)
		o.SetResourceVersion("")
		if err := f.kube.Seed(o); err != nil {
			f.t.Fatal(err)
		}
	}
}

// staleKube gives every object of the API server another fingerprint:
// written by an older template.
func (f *fleet) staleKube() {
	f.t.Helper()
	for _, o := range f.kube.Objects() {
		o = o.DeepCopy()
		a := o.GetAnnotations()
		a[bundles.FingerprintAnnotation] = "stale"
		o.SetAnnotations(a)
		o.SetResourceVersion("")
		if err := f.kube.Seed(o); err != nil {
			f.t.Fatal(err)
		}
	}
}

// shadowRun is one shadow replica over the fleet, counting decisions.
type shadowRun struct {
	s      *shadow.Shadow
	mu     sync.Mutex
	counts map[string]int    // "operation agrees"
	fields map[string]string // operation -> field class of its last disagreement
	logs   bytes.Buffer
}

func (f *fleet) shadow(taskFile string) *shadowRun {
	f.t.Helper()
	var m adapter.Maestro
	var k adapter.Kube
	if strings.Contains(taskFile, "kube") {
		k = shadow.Kube(f.kube)
	} else {
		m = shadow.Maestro(f.store)
	}
	ro := shadow.API(f.api)
	p := f.pipeline(taskFile, m, k, ro)
	r := &shadowRun{counts: map[string]int{}, fields: map[string]string{}}
	s, err := shadow.New(shadow.Options{Run: p.Run, API: ro, Adapter: "test-adapter",
		Logger: slog.New(slog.NewJSONHandler(&r.logs, nil)),
		Count: func(op string, agrees bool, field string) {
			r.mu.Lock()
			defer r.mu.Unlock()
			if !agrees {
				r.fields[op] = field
			}
			if agrees {
				r.counts[op+" agrees"]++
			} else {
				r.counts[op+" differs"]++
			}
		}})
	if err != nil {
		f.t.Fatal(err)
	}
	r.s = s
	f.store.ResetCalls()
	f.kube.ResetCalls()
	return r
}

// noWrites fails the test when a write reached a fake since the shadow
// replica was made.
func (f *fleet) noWrites(since int) {
	f.t.Helper()
	for _, c := range f.store.Calls() {
		if c.Verb != memmaestro.VerbGet && c.Verb != memmaestro.VerbGetBundles {
			f.t.Errorf("a Maestro write reached the fake: %v", c)
		}
	}
	if n := f.kube.Writes(); n != 0 {
		f.t.Errorf("%d writes reached the API server: %v", n, f.kube.Calls())
	}
	for _, c := range f.api.Calls()[since:] {
		if c.Method != "GET" {
			f.t.Errorf("a HyperFleet API write reached the stub: %s %s", c.Method, c.Path)
		}
	}
}

var clusters = []string{"a", "b", "c"}

// The kubernetes task's status reports the operations ("ops":
// create/done on the live adapter's first event, unchanged/done on the
// shadow's): the whole status is compared, so that status differs.
func TestShadowOverHandMadeObjectsAgreesAndWritesNothing(t *testing.T) {
	for _, tc := range []struct {
		taskFile, status string
	}{{"testdata/task.yaml", "status agrees"}, {"testdata/kube/task.yaml", "status differs"}} {
		taskFile := tc.taskFile
		t.Run(taskFile, func(t *testing.T) {
			f := newFleet(t)
			for _, id := range clusters {
				f.live(taskFile, event(id, nil))
			}
			f.handMade(clusters...)
			f.api = f.restub()
			r := f.shadow(taskFile)
			for _, id := range clusters {
				res := r.s.Process(context.Background(), event(id, nil))
				if res.Disposition() != adapter.Ack {
					t.Fatalf("%s: disposition %v (%v), want ack", id, res.Disposition(), res.Error)
				}
				for _, o := range res.Bundles {
					if o.Reason != adapter.ReasonAdopted {
						t.Errorf("%s/%s: %s/%s %s, want adopted", id, o.Name, o.Operation, o.State, o.Reason)
					}
				}
			}
			f.noWrites(0)
			want := map[string]int{"unchanged agrees": 2 * len(clusters), tc.status: len(clusters)}
			if !equalCounts(r.counts, want) {
				t.Errorf("decisions %v, want %v\nlog:\n%s", r.counts, want, r.logs.String())
			}
			if tc.status == "status agrees" && strings.Contains(r.logs.String(), "disagrees") {
				t.Errorf("a disagreement logged:\n%s", r.logs.String())
			}
		})
	}
}

func equalCounts(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// A template changed since the live adapter wrote: the shadow replica
// reports the update it would make, naming the field; the status it would
// report differs too (its observed_generation, or the data that reports
// the new revision), since the whole status is compared.
func TestShadowNamesTheChangedField(t *testing.T) {
	tests := []struct {
		task, field string
		fields      map[string]any
		want        map[string]int
	}{
		{"testdata/task.yaml", `spec.workload.manifests[0].data.generation: desired "2", live "1"`, map[string]any{"generation": int64(2)},
			map[string]int{"update differs": 2, "status differs": 1}},
		{"testdata/kube/task.yaml", `data.rev: desired "2", live "1"`, map[string]any{"rev": "2"},
			map[string]int{"unchanged agrees": 1, "update differs": 1, "status differs": 1}},
	}
	for _, tt := range tests {
		t.Run(tt.task, func(t *testing.T) {
			f := newFleet(t)
			f.live(tt.task, event("a", nil))
			f.handMade("a")
			f.api = f.restub()
			r := f.shadow(tt.task)
			res := r.s.Process(context.Background(), event("a", tt.fields))
			if res.Disposition() != adapter.Ack {
				t.Fatalf("disposition %v (%v), want ack", res.Disposition(), res.Error)
			}
			f.noWrites(0)
			if !equalCounts(r.counts, tt.want) {
				t.Errorf("decisions %v, want %v\nlog:\n%s", r.counts, tt.want, r.logs.String())
			}
			logs := r.logs.String()
			for _, want := range []string{`"msg":"shadow: disagrees"`, `"event_id":"ev-a"`, tt.field} {
				if !strings.Contains(logs, jsonEscaped(want)) {
					t.Errorf("log lacks %s:\n%s", want, logs)
				}
			}
		})
	}
}

// jsonEscaped is s as it appears inside a JSON string (quotes escaped),
// unless s is itself a JSON fragment of the log line.
func jsonEscaped(s string) string {
	if strings.HasPrefix(s, `"`) {
		return s
	}
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

// The whole story through the read-only boundaries: create, update,
// recreate, delete, unchanged, adopted. No write reaches a fake; each
// would-be write is recorded.
func TestShadowWholeStoryWritesNothing(t *testing.T) {
	story := []struct {
		name     string
		live     bool // the live adapter wrote generation 1 first
		handMade bool
		fields   map[string]any
		wantOps  map[string]bool
	}{
		{name: "create", fields: nil, wantOps: map[string]bool{"create differs": true}},
		{name: "update", live: true, fields: map[string]any{"generation": int64(2), "rev": "2"}, wantOps: map[string]bool{"update differs": true}},
		{name: "recreate", live: true, fields: map[string]any{"generation": int64(2), "rev": "2", "recreate": true}, wantOps: map[string]bool{"recreate differs": true}},
		{name: "delete", live: true, fields: map[string]any{"deleting": true}, wantOps: map[string]bool{"delete differs": true}},
		{name: "unchanged", live: true, fields: nil, wantOps: map[string]bool{"unchanged agrees": true}},
		{name: "adopted", live: true, handMade: true, fields: nil, wantOps: map[string]bool{"unchanged agrees": true}},
	}
	for _, taskFile := range []string{"testdata/task.yaml", "testdata/kube/task.yaml"} {
		for _, st := range story {
			t.Run(taskFile+"/"+st.name, func(t *testing.T) {
				f := newFleet(t)
				if st.live {
					f.live(taskFile, event("a", nil))
				}
				if st.handMade {
					f.handMade("a")
				}
				if st.name == "recreate" {
					f.staleKube() // the Namespace's content does not vary with the event
				}
				f.api = f.restub()
				r := f.shadow(taskFile)
				// The same replica twice: nothing it recorded, remembered or
				// answered itself changes the second decision.
				var runs []map[string]int
				for range 2 {
					r.counts = map[string]int{}
					if res := r.s.Process(context.Background(), event("a", st.fields)); res.Disposition() != adapter.Ack {
						t.Fatalf("disposition %v (%v), want ack", res.Disposition(), res.Error)
					}
					runs = append(runs, r.counts)
				}
				if !equalCounts(runs[0], runs[1]) {
					t.Errorf("first event decided %v, the second %v", runs[0], runs[1])
				}
				f.noWrites(0)
				for op := range st.wantOps {
					if r.counts[op] == 0 {
						t.Errorf("no %q decision: %v\n%s", op, r.counts, r.logs.String())
					}
				}
			})
		}
	}
}

// failingMaestro fails every read: Maestro unavailable.
type failingMaestro struct{ adapter.Maestro }

func (failingMaestro) GetBundles(context.Context, []adapter.BundleKey) ([]*workv1.ManifestWork, error) {
	return nil, adapter.ErrUnavailable
}

func (failingMaestro) Get(context.Context, string, string) (*workv1.ManifestWork, error) {
	return nil, adapter.ErrUnavailable
}

// A failed read is redelivered as serve redelivers it, and nothing is
// counted for it; a failed read of the live status too.
func TestShadowFailedReadIsRetried(t *testing.T) {
	f := newFleet(t)
	f.live("testdata/task.yaml", event("a", nil))
	f.api = f.restub()
	f.store.ResetCalls()
	ro := shadow.API(f.api)
	p := f.pipeline("testdata/task.yaml", shadow.Maestro(failingMaestro{f.store}), nil, ro)
	counted := 0
	s, err := shadow.New(shadow.Options{Run: p.Run, API: ro, Count: func(string, bool, string) { counted++ },
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	if res := s.Process(context.Background(), event("a", nil)); res.Disposition() != adapter.Retry {
		t.Errorf("Maestro read failed: disposition %v, want retry", res.Disposition())
	}
	// The status read fails: the API answers 503.
	f.api = apistub.New("v1", map[string]apistub.Response{"GET /api/hyperfleet/v1/clusters/a/statuses": {Status: 503, Body: json.RawMessage(`{}`)}})
	ro = shadow.API(f.api)
	p = f.pipeline("testdata/task.yaml", shadow.Maestro(f.store), nil, ro)
	s, err = shadow.New(shadow.Options{Run: p.Run, API: ro, Count: func(string, bool, string) { counted++ },
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	if res := s.Process(context.Background(), event("a", nil)); res.Disposition() != adapter.Retry {
		t.Errorf("status read failed: disposition %v, want retry", res.Disposition())
	}
	if counted != 0 {
		t.Errorf("%d decisions counted for events that are retried, want 0", counted)
	}
	f.noWrites(0)
}
