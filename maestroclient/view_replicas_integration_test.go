package maestroclient_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/config"
	"github.com/bundle-adapter/bundle-adapter/hyperfleetapi/apistub"
	"github.com/bundle-adapter/bundle-adapter/maestroclient"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/agentsim"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/view"
	"github.com/bundle-adapter/bundle-adapter/task"
)

// writeLog records the writes a replica sends, as "verb name".
type writeLog struct {
	adapter.Maestro
	mu     sync.Mutex
	writes []string
}

func (w *writeLog) add(s string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writes = append(w.writes, s)
}

func (w *writeLog) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.writes
	w.writes = nil
	return out
}

func (w *writeLog) Create(ctx context.Context, c string, work *workv1.ManifestWork, read adapter.CreateRead) (*workv1.ManifestWork, error) {
	w.add("create " + work.Name)
	return w.Maestro.Create(ctx, c, work, read)
}

func (w *writeLog) Update(ctx context.Context, c string, o, d *workv1.ManifestWork) (*workv1.ManifestWork, error) {
	w.add("update " + o.Name)
	return w.Maestro.Update(ctx, c, o, d)
}

func (w *writeLog) Delete(ctx context.Context, c, name string) error {
	w.add("delete " + name)
	return w.Maestro.Delete(ctx, c, name)
}

// replicaWorld is one consumer on the real Maestro with its simulated agent
// (deletions held until released) and two adapter replicas: A, under test,
// with or without a view fed by its own client's status stream, and B
// without a view.
type replicaWorld struct {
	t        *testing.T
	consumer string
	agent    *agentsim.Agent
	a, b     *adapter.Pipeline
	aLog     *writeLog
	view     *view.View
	seen     *seenSink
	client   *maestroclient.Client
}

// seenSink passes A's status stream to its view and records, per consumer
// and bundle name, the generation annotations of the agent reports (events
// with conditions) the view has been given. Both worlds' clients use one
// source, so the stream carries the other world's consumer's reports too.
type seenSink struct {
	maestroclient.StatusSink
	mu      sync.Mutex
	reports map[string][]string
}

func (s *seenSink) Status(work *workv1.ManifestWork) {
	s.StatusSink.Status(work)
	if work == nil || len(work.Status.Conditions) == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	k := work.Namespace + "/" + work.Name
	s.reports[k] = append(s.reports[k], work.Annotations["hyperfleet.io/generation"])
}

// reported says whether the view has been given an agent report of
// consumer's bundle name at generation annotation gen (any, when gen is
// empty).
func (s *seenSink) reported(consumer, name, gen string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, g := range s.reports[consumer+"/"+name] {
		if g == gen || gen == "" {
			return true
		}
	}
	return false
}

func newReplicaWorld(t *testing.T, s server, task *task.TaskConfig, withView bool) *replicaWorld {
	w := &replicaWorld{t: t, consumer: register(t, s, "view")}
	w.agent = startAgent(t, s, w.consumer, func(o *agentsim.Options) { o.Delete = agentsim.DeleteOnRelease })
	var sink maestroclient.StatusSink
	if withView {
		w.view = view.New(view.Options{MaxAge: time.Minute})
		w.seen = &seenSink{StatusSink: w.view, reports: map[string][]string{}}
		sink = w.seen
	}
	w.client = newClient(t, s, func(o *maestroclient.Options) { o.Status = sink; o.SourceID = "view-replicas-test" })
	bClient := newClient(t, s, func(o *maestroclient.Options) { o.SourceID = "view-replicas-test" })
	var aM adapter.Maestro = w.client
	var bv adapter.BundleView
	if withView {
		aM, bv = view.Maestro(w.client, w.view), w.view
		eventually(t, 30*time.Second, "the view's first subscription", func() error {
			if !w.view.Synced() {
				return fmt.Errorf("not subscribed yet")
			}
			return nil
		})
	}
	w.aLog = &writeLog{Maestro: aM}
	w.a = pipeline(t, task, w.aLog, bv)
	w.b = pipeline(t, task, bClient, nil)
	return w
}

func pipeline(t *testing.T, task *task.TaskConfig, m adapter.Maestro, v adapter.BundleView) *adapter.Pipeline {
	p, err := adapter.New(adapter.Options{Task: task, Adapter: config.AdapterInfo{Name: "view-test", Version: "0"},
		Maestro: m, View: v, API: apistub.New("v1", nil), LookupEnv: func(string) (string, bool) { return "", false },
		Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func (w *replicaWorld) run(b bool, fields map[string]any) *adapter.Result {
	data := map[string]any{"id": "x", "kind": "Cluster", "generation": int64(1), "consumer": w.consumer, "jobConsumer": w.consumer}
	for k, v := range fields {
		data[k] = v
	}
	p := w.a
	if b {
		p = w.b
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return p.Run(ctx, adapter.Event{ID: "ev", Type: "com.redhat.hyperfleet.cluster.reconcile", Source: "test", Data: data})
}

func (w *replicaWorld) release(name string) {
	ctx := context.Background()
	work, err := w.client.Get(ctx, w.consumer, name)
	if err != nil {
		w.t.Fatalf("release %s: %v", name, err)
	}
	w.agent.Release(ctx, string(work.UID))
	eventually(w.t, 60*time.Second, "the released deletion of "+name, func() error {
		if _, err := w.client.Get(ctx, w.consumer, name); err == nil {
			return fmt.Errorf("still there")
		}
		return nil
	})
}

func resultOutcomes(res *adapter.Result) string {
	var out []string
	for _, o := range res.Bundles {
		out = append(out, fmt.Sprintf("%s:%s/%s/%s %s", o.Name, o.Operation, o.State, o.Reason, o.Error))
	}
	return fmt.Sprint(out)
}

// Two replicas on the real Maestro and a simulated agent: replica A with
// the view (fed by the real status stream) decides and writes exactly as
// replica A without it, while replica B recreates the bundle behind A's
// back; the unchanged events A's view serves make no Maestro request, the
// first ones after A's creates included (the agent's status of a bundle A
// created makes its entry); and
// A, run right after B's delete, before the stream can have told its view,
// writes nothing whatever it reports.
func TestViewReplicasOnRealMaestro(t *testing.T) {
	s := requireServer(t)
	task, err := config.LoadTaskConfig("testdata/view/task.yaml")
	if err != nil {
		t.Fatal(err)
	}
	off, on := newReplicaWorld(t, s, task, false), newReplicaWorld(t, s, task, true)
	// reported waits until an agent report of each of bundles ("name" or
	// "name@generation annotation") has reached A's view. A report
	// arriving while A's read is in flight stops the read from storing
	// (Maestro may have answered before the report), and the step after
	// would read again.
	reported := func(bundles ...string) func(w *replicaWorld) {
		return func(w *replicaWorld) {
			if w.view == nil {
				return
			}
			for _, b := range bundles {
				name, gen, _ := strings.Cut(b, "@")
				eventually(t, 30*time.Second, "the agent's report of "+b+" in A's view", func() error {
					if !w.seen.reported(w.consumer, name, gen) {
						return fmt.Errorf("not reported yet")
					}
					return nil
				})
			}
		}
	}
	rec2 := map[string]any{"generation": int64(2), "recreate": true}
	gen2 := map[string]any{"generation": int64(2)}
	steps := []struct {
		name string
		b    bool
		f    map[string]any
		hit  bool
		// before runs in each world before the step.
		before func(w *replicaWorld)
	}{
		{name: "A creates both"},
		{name: "A: unchanged, from its creates' own statuses", hit: true, before: reported("x-config", "x-job@1")},
		{name: "A: unchanged from the view", hit: true},
		{name: "B starts a recreation of the job", b: true, f: rec2},
		{name: "A after the stream told: recreate pending, from a read", f: rec2, before: func(w *replicaWorld) {
			if w.view == nil {
				return
			}
			eventually(t, 10*time.Second, "the stream's Deleting in A's view", func() error {
				if _, ok := w.view.Lookup(w.consumer, "x-job"); ok {
					return fmt.Errorf("x-job still trusted")
				}
				return nil
			})
		}},
		{name: "deletion released: A recreates", f: rec2, before: func(w *replicaWorld) { w.release("x-job") }},
		{name: "A: unchanged, the job from its recreate's own status", f: gen2, hit: true, before: reported("x-job@2")},
		{name: "A: unchanged from the view", f: gen2, hit: true},
	}
	for _, st := range steps {
		var res [2]*adapter.Result
		var writes [2][]string
		for i, w := range []*replicaWorld{off, on} {
			if st.before != nil {
				st.before(w)
			}
			w.aLog.take()
			res[i] = w.run(st.b, st.f)
			writes[i] = w.aLog.take()
		}
		t.Logf("%s: %s (view %q, %d requests)", st.name, resultOutcomes(res[1]), res[1].View, res[1].MaestroRequests)
		if g, w := resultOutcomes(res[1]), resultOutcomes(res[0]); g != w {
			t.Errorf("%s: outcomes with view %s, without %s", st.name, g, w)
		}
		if g, w := fmt.Sprint(writes[1]), fmt.Sprint(writes[0]); g != w {
			t.Errorf("%s: writes with view %s, without %s", st.name, g, w)
		}
		if st.hit && (res[1].View != adapter.ViewHit || res[1].MaestroRequests != 0) {
			t.Errorf("%s: want a view hit without Maestro requests, got %q with %d", st.name, res[1].View, res[1].MaestroRequests)
		}
		if !st.hit && res[1].View == adapter.ViewHit {
			t.Errorf("%s: served by the view, want a read", st.name)
		}
	}

	// The race the view's bound is for: B recreates, A runs the same event
	// at once, maybe before the stream told its view. A must write nothing:
	// from a read it sees the update done and the deletion pending; from a
	// stale view it reports unchanged.
	rec3 := map[string]any{"generation": int64(3), "recreate": true}
	on.run(true, rec3)
	on.aLog.take()
	res := on.run(false, rec3)
	if w := on.aLog.take(); len(w) != 0 {
		t.Errorf("A right after B's delete wrote %v (reported %s)", w, resultOutcomes(res))
	}
	t.Logf("A right after B's delete: %s (view %q)", resultOutcomes(res), res.View)
}
