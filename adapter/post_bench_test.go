package adapter

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/celenv"
	"github.com/bundle-adapter/bundle-adapter/config"
	"github.com/bundle-adapter/bundle-adapter/task"
)

// benchMaestro is a map of bundles whose agent has reported them applied and
// available, with status feedback: what an unchanged event observes.
type benchMaestro struct {
	mu    sync.Mutex
	works map[string]*workv1.ManifestWork
}

func (m *benchMaestro) Get(_ context.Context, consumer, name string) (*workv1.ManifestWork, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	w, ok := m.works[consumer+"/"+name]
	if !ok {
		return nil, ErrNotFound
	}
	return w.DeepCopy(), nil
}

func (m *benchMaestro) GetBundles(ctx context.Context, keys []BundleKey) ([]*workv1.ManifestWork, error) {
	out := make([]*workv1.ManifestWork, len(keys))
	for i, k := range keys {
		out[i], _ = m.Get(ctx, k.Consumer, k.Name)
	}
	return out, nil
}

func (m *benchMaestro) Create(_ context.Context, consumer string, work *workv1.ManifestWork, _ CreateRead) (*workv1.ManifestWork, error) {
	w := work.DeepCopy()
	w.Namespace, w.Generation = consumer, 1
	now := metav1.NewTime(time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC))
	for _, t := range []string{workv1.WorkApplied, workv1.WorkAvailable} {
		w.Status.Conditions = append(w.Status.Conditions, metav1.Condition{Type: t, Status: metav1.ConditionTrue,
			Reason: "Bench", ObservedGeneration: 1, LastTransitionTime: now})
	}
	for i, raw := range w.Spec.Workload.Manifests {
		var obj struct {
			Kind     string `json:"kind"`
			Metadata struct{ Name, Namespace string }
		}
		_ = json.Unmarshal(raw.Raw, &obj)
		one := int64(1)
		w.Status.ResourceStatus.Manifests = append(w.Status.ResourceStatus.Manifests, workv1.ManifestCondition{
			ResourceMeta: workv1.ManifestResourceMeta{Ordinal: int32(i), Kind: obj.Kind,
				Name: obj.Metadata.Name, Namespace: obj.Metadata.Namespace},
			StatusFeedbacks: workv1.StatusFeedbackResult{Values: []workv1.FeedbackValue{
				{Name: "succeeded", Value: workv1.FieldValue{Type: workv1.Integer, Integer: &one}}}},
			Conditions: []metav1.Condition{{Type: workv1.ManifestAvailable, Status: metav1.ConditionTrue,
				Reason: "Bench", ObservedGeneration: 1, LastTransitionTime: now}},
		})
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.works[consumer+"/"+w.Name] = w
	return w.DeepCopy(), nil
}

func (m *benchMaestro) Update(context.Context, string, *workv1.ManifestWork, *workv1.ManifestWork) (*workv1.ManifestWork, error) {
	return nil, fmt.Errorf("%w: the benchmark never updates", ErrInvalid)
}

func (m *benchMaestro) Delete(context.Context, string, string) error {
	return fmt.Errorf("%w: the benchmark never deletes", ErrInvalid)
}

func (m *benchMaestro) Redelete(context.Context, string, string) error {
	return fmt.Errorf("%w: the benchmark never deletes", ErrInvalid)
}

// benchAPI answers the onprem example's cluster GET and accepts status PUTs.
type benchAPI struct{}

func (benchAPI) Do(_ context.Context, req APIRequest) (APIResponse, error) {
	if req.Method == "GET" {
		id := req.URL[strings.LastIndexByte(req.URL, '/')+1:]
		body := fmt.Sprintf(`{"id":%q,"kind":"Cluster","name":"demo-%s","generation":1,"spec":{"region":"onprem-1"}}`, id, id)
		return APIResponse{Status: 200, Body: []byte(body)}, nil
	}
	return APIResponse{Status: 200, Body: []byte(`{}`)}, nil
}

// unchangedRun is the state of an unchanged event of the onprem example just
// before its post phase: params, preconditions and both bundles done, with
// observed bundles that the agent reported available.
func unchangedRun(b testing.TB) (*eventRun, *task.Payload) {
	b.Helper()
	task, err := config.LoadTaskConfig("../config/examples/onprem/task-config.yaml")
	if err != nil {
		b.Fatal(err)
	}
	p, err := New(Options{Task: task, Adapter: config.AdapterInfo{Name: "bench", Version: "0"},
		Maestro: &benchMaestro{works: map[string]*workv1.ManifestWork{}}, API: benchAPI{},
		LookupEnv: func(string) (string, bool) { return "", false },
		Logger:    slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	raw, err := os.ReadFile("../config/examples/onprem/dryrun/event.json")
	if err != nil {
		b.Fatal(err)
	}
	ev, err := DecodeStructured(raw)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if res := p.Run(ctx, ev); res.Err() != nil { // creates both bundles
		b.Fatal(res.Err())
	}
	r := newRun(p, ev)
	if !r.resolveParams(ctx) || !r.checkPreconditions(ctx) {
		b.Fatalf("params or preconditions failed: %v", r.result.Errors)
	}
	r.reconcileBundles(ctx)
	for _, o := range r.result.Bundles {
		if o.Operation != OpUnchanged {
			b.Fatalf("want unchanged bundles, got %+v", o)
		}
	}
	for i := range task.Post.Payloads {
		if task.Post.Payloads[i].Name == "status" {
			return r, &task.Post.Payloads[i]
		}
	}
	b.Fatal("the onprem example has no status payload")
	return nil, nil
}

// BenchmarkPostPayload builds the onprem example's status payload (its CEL
// expressions and its two template leaves) for an unchanged event.
func BenchmarkPostPayload(b *testing.B) {
	r, pl := unchangedRun(b)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		v, err := r.build(ctx, pl.Compiled)
		if err != nil {
			b.Fatal(err)
		}
		if v.(map[string]any)["conditions"].([]any)[1].(map[string]any)["status"] != "True" {
			b.Fatalf("want Available True, got %v", v)
		}
	}
}

// BenchmarkPostPayloadCEL evaluates only the CEL expressions of the onprem
// example's status payload, each once per iteration.
func BenchmarkPostPayloadCEL(b *testing.B) {
	r, pl := unchangedRun(b)
	var exprs []*celenv.Expr
	var walk func(n task.BuildNode)
	walk = func(n task.BuildNode) {
		switch {
		case n.Expr != nil:
			exprs = append(exprs, n.Expr)
		case n.IsMap:
			for _, f := range n.Map {
				walk(f.Node)
			}
		case n.IsList:
			for _, e := range n.List {
				walk(e)
			}
		}
	}
	walk(pl.Compiled)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		for _, e := range exprs {
			if _, err := r.eval(ctx, e); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(exprs)), "ns/expr")
	b.ReportMetric(float64(len(exprs)), "exprs")
}
