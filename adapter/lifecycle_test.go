package adapter_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/config"
	"github.com/bundle-adapter/bundle-adapter/hyperfleetapi/apistub"
	"github.com/bundle-adapter/bundle-adapter/kubeclient/memkube"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/memmaestro"
)

// lifecycleTransport is one in-memory transport carrying the one resource
// of testdata/lifecycle: a ManifestWork through Maestro, or the same
// Namespace applied straight to an API server. Each holds a deletion until
// release (the agent confirms; the namespace controller lets go).
type lifecycleTransport struct {
	name string
	task string
	// start gives a fresh transport at clock; foreign, when set, already
	// holds the object without a fingerprint (another writer made it).
	start func(t *testing.T, clock func() time.Time, foreign any) (opts func(*adapter.Options), release func(), object func() any)
}

var lifecycleTransports = []lifecycleTransport{
	{name: "maestro", task: "testdata/lifecycle/maestro.yaml", start: startMaestro},
	{name: "kubernetes", task: "testdata/lifecycle/kube.yaml", start: startKube},
}

func startMaestro(t *testing.T, clock func() time.Time, foreign any) (func(*adapter.Options), func(), func() any) {
	store := memmaestro.New(memmaestro.Options{Clock: clock, DeleteBehavior: memmaestro.DeletePending, Consumers: []string{"c1"}})
	if foreign != nil {
		raw, err := json.Marshal(foreign)
		if err != nil {
			t.Fatal(err)
		}
		if err := store.Adopt("c1", raw); err != nil {
			t.Fatal(err)
		}
	}
	object := func() any {
		for _, w := range store.Works() {
			return map[string]any{"apiVersion": "work.open-cluster-management.io/v1", "kind": "ManifestWork",
				"metadata": map[string]any{"name": w.Name, "namespace": w.Namespace, "labels": w.Labels},
				"spec":     w.Spec}
		}
		return nil
	}
	return func(o *adapter.Options) { o.Maestro = store }, func() { store.ConfirmAll() }, object
}

func startKube(t *testing.T, clock func() time.Time, foreign any) (func(*adapter.Options), func(), func() any) {
	store := memkube.New(memkube.Options{Clock: clock, HoldNamespaces: true})
	if foreign != nil {
		if err := store.Seed(foreign.(*unstructured.Unstructured)); err != nil {
			t.Fatal(err)
		}
	}
	ref := adapter.KubeRef{APIVersion: "v1", Kind: "Namespace", Name: "ns-x"}
	release := func() {
		if err := store.RemoveFinalizers(context.Background(), ref); err != nil {
			t.Fatal(err)
		}
	}
	object := func() any {
		objs := store.Objects()
		if len(objs) == 0 {
			return nil
		}
		labels := map[string]any{}
		for k, v := range objs[0].GetLabels() {
			labels[k] = v
		}
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace",
			"metadata": map[string]any{"name": objs[0].GetName(), "labels": labels}}}
	}
	return func(o *adapter.Options) { o.Kube = store }, release, object
}

// lifecycleRun is one adapter process (one pipeline) on a transport.
type lifecycleRun struct {
	t       *testing.T
	now     time.Time
	p       *adapter.Pipeline
	release func()
	object  func() any
	writes  int // create, update/apply, delete and redelete calls so far
}

func newLifecycleRun(t *testing.T, tr lifecycleTransport, foreign any) *lifecycleRun {
	t.Helper()
	r := &lifecycleRun{t: t, now: t0}
	tc, err := config.LoadTaskConfig(tr.task)
	if err != nil {
		t.Fatalf("load %s: %v", tr.task, err)
	}
	setTransport, release, object := tr.start(t, func() time.Time { return r.now }, foreign)
	opts := adapter.Options{Task: tc, Adapter: config.AdapterInfo{Name: "test-adapter", Version: "0"},
		API: apistub.New("v1", nil), Clock: func() time.Time { return r.now },
		LookupEnv: func(string) (string, bool) { return "", false },
		Logger:    slog.New(slog.NewTextHandler(io.Discard, nil))}
	setTransport(&opts)
	count := func(ctx context.Context, c adapter.Call) (context.Context, func(error)) {
		if c.Verb != "Get" && c.Verb != "GetBundles" && c.Verb != "List" {
			r.writes++
		}
		return ctx, nil
	}
	if opts.Maestro != nil {
		opts.Maestro = adapter.InterceptMaestro(opts.Maestro, count)
	}
	if opts.Kube != nil {
		opts.Kube = adapter.InterceptKube(opts.Kube, count)
	}
	if r.p, err = adapter.New(opts); err != nil {
		t.Fatal(err)
	}
	r.release, r.object = release, object
	return r
}

func (r *lifecycleRun) event(fields map[string]any) adapter.Outcome {
	r.t.Helper()
	data := map[string]any{"id": "x", "kind": "Cluster", "generation": int64(1)}
	for k, v := range fields {
		data[k] = v
	}
	r.writes = 0
	res := r.p.Run(context.Background(), adapter.Event{ID: "ev", Type: "com.redhat.hyperfleet.cluster.reconcile", Source: "test", Data: data})
	return res.Bundles[0]
}

type lifecycleStep struct {
	name    string
	fields  map[string]any
	advance time.Duration
	release bool
	op      adapter.Operation
	state   adapter.State
	reason  string
	pending int64
	writes  int
}

// One decision, one flow, two transports: the same resource through the
// same events gives the same operation, state, reason and pending age at
// every step on Maestro and on a Kubernetes API server (docs/kubernetes.md:
// "the same decision, row for row").
func TestLifecycleBothTransports(t *testing.T) {
	recreate3 := map[string]any{"rev": "3", "recreate": true}
	steps := []lifecycleStep{
		{name: "absent: create", op: adapter.OpCreate, state: adapter.StateDone, reason: adapter.ReasonCreated, writes: 1},
		{name: "same event: no write", op: adapter.OpUnchanged, state: adapter.StateDone, reason: adapter.ReasonUnchanged},
		{name: "content changed: update in place", fields: map[string]any{"rev": "2"}, op: adapter.OpUpdate, state: adapter.StateDone, reason: adapter.ReasonUpdated, writes: 1},
		{name: "recreate rule: delete, held", fields: recreate3, op: adapter.OpRecreate, state: adapter.StatePending, reason: adapter.ReasonRecreationPending, writes: 1},
		{name: "still held", fields: recreate3, advance: 30 * time.Second, op: adapter.OpRecreate, state: adapter.StatePending, reason: adapter.ReasonRecreationPending, pending: 30},
		{name: "past the deadline: stalled", fields: recreate3, advance: 45 * time.Second, op: adapter.OpRecreate, state: adapter.StateStalled, reason: adapter.ReasonRecreationStalled, pending: 75},
		{name: "released between events: the create ends the recreation", fields: recreate3, release: true, op: adapter.OpRecreate, state: adapter.StateDone, reason: adapter.ReasonRecreated, writes: 1},
		{name: "recreated: the rule is not evaluated again", fields: recreate3, op: adapter.OpUnchanged, state: adapter.StateDone, reason: adapter.ReasonUnchanged},
		{name: "rule error", fields: map[string]any{"rev": "3", "boom": true}, op: adapter.OpDelete, state: adapter.StateFailed, reason: adapter.ReasonRuleFailed},
		{name: "delete rule: delete, held", fields: map[string]any{"rev": "3", "deleting": true}, op: adapter.OpDelete, state: adapter.StatePending, reason: adapter.ReasonDeletionPending, writes: 1},
		{name: "released: gone", fields: map[string]any{"rev": "3", "deleting": true}, release: true, op: adapter.OpDelete, state: adapter.StateDone, reason: adapter.ReasonDeleted},
		{name: "gone: no write", fields: map[string]any{"rev": "3", "deleting": true}, op: adapter.OpDelete, state: adapter.StateDone, reason: adapter.ReasonDeleted},
	}
	for _, tr := range lifecycleTransports {
		t.Run(tr.name, func(t *testing.T) {
			r := newLifecycleRun(t, tr, nil)
			for _, s := range steps {
				r.now = r.now.Add(s.advance)
				if s.release {
					r.release()
				}
				o := r.event(s.fields)
				if r.writes != s.writes {
					t.Errorf("%s: %d writes, want %d (a held deletion is never sent twice; nothing is created while the old object exists)", s.name, r.writes, s.writes)
				}
				if o.Operation != s.op || o.State != s.state || o.Reason != s.reason || o.PendingSeconds != s.pending {
					t.Errorf("%s: %s/%s %s pending %ds, want %s/%s %s pending %ds (error %q)", s.name,
						o.Operation, o.State, o.Reason, o.PendingSeconds, s.op, s.state, s.reason, s.pending, o.Error)
				}
			}
		})
	}
}

// An object another writer made with the content this adapter would write
// (no fingerprint annotation) is adopted without a write, on both
// transports; one that differs is updated once.
func TestAdoptionBothTransports(t *testing.T) {
	for _, tr := range lifecycleTransports {
		t.Run(tr.name, func(t *testing.T) {
			made := newLifecycleRun(t, tr, nil)
			made.event(nil)
			foreign := made.object()
			if foreign == nil {
				t.Fatal("no object to adopt")
			}
			r := newLifecycleRun(t, tr, foreign)
			if o := r.event(nil); o.Operation != adapter.OpUnchanged || o.State != adapter.StateDone || o.Reason != adapter.ReasonAdopted {
				t.Errorf("same content: %s/%s %s, want unchanged/done Adopted (error %q)", o.Operation, o.State, o.Reason, o.Error)
			}
			r = newLifecycleRun(t, tr, foreign)
			if o := r.event(map[string]any{"rev": "2"}); o.Operation != adapter.OpUpdate || o.State != adapter.StateDone || o.Reason != adapter.ReasonUpdated {
				t.Errorf("other content: %s/%s %s, want update/done Updated (error %q)", o.Operation, o.State, o.Reason, o.Error)
			}
		})
	}
}
