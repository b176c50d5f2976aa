package configtest

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/bundles"
)

// The goldens record, for every step of every case of every task-config
// test file in the repository (examples, chart examples, HyperFleet-shaped
// fixtures, configtest's own), what the pipeline did: each client call in
// order (Maestro, Kubernetes, HyperFleet API, with bodies), each resource's
// outcome, the payloads built and the request count. A change of the
// reconcile flow that is meant to move no behaviour leaves them
// byte-identical; one that moves behaviour rewrites them (go test
// ./configtest -run TestGoldens -update-goldens) and names each change in
// its commit.
var updateGoldens = flag.Bool("update-goldens", false, "rewrite testdata/goldens from what the cases do now")

func TestGoldens(t *testing.T) {
	files := goldenTestFiles(t)
	if len(files) < 8 {
		t.Fatalf("found %d task-config test files, want every one in the repository (8 or more): %v", len(files), files)
	}
	for _, f := range files {
		t.Run(f, func(t *testing.T) {
			got := recordGolden(t, f, false)
			path := filepath.Join("testdata", "goldens", strings.ReplaceAll(strings.TrimSuffix(f, ".yaml"), "/", "__")+".json")
			if *updateGoldens {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("no golden for %s (run with -update-goldens once): %v", f, err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s: the pipeline's calls, outcomes or payloads changed from %s:\n%s", f, path, firstDiff(want, got))
			}
		})
	}
}

// The trace only observes (adapter.Options.Trace): every case of every
// test file, run traced, does exactly what its golden records.
func TestGoldensTraced(t *testing.T) {
	for _, f := range goldenTestFiles(t) {
		t.Run(f, func(t *testing.T) {
			path := filepath.Join("testdata", "goldens", strings.ReplaceAll(strings.TrimSuffix(f, ".yaml"), "/", "__")+".json")
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("no golden for %s: %v", f, err)
			}
			if got := recordGolden(t, f, true); !bytes.Equal(got, want) {
				t.Errorf("%s traced: the pipeline's calls, outcomes or payloads differ from %s:\n%s", f, path, firstDiff(want, got))
			}
		})
	}
}

// goldenTestFiles lists every *_test.yaml of the repository, relative to
// its root, sorted.
func goldenTestFiles(t *testing.T) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "goldens" || d.Name() == "bin") {
			return filepath.SkipDir
		}
		if !d.IsDir() && isTestFile(d.Name()) {
			out = append(out, filepath.ToSlash(strings.TrimPrefix(path, "../")))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

type goldenStep struct {
	Case       string            `json:"case"`
	Step       int               `json:"step"`
	Invalid    string            `json:"invalid,omitempty"`
	Calls      []string          `json:"calls"`
	Outcomes   []adapter.Outcome `json:"outcomes"`
	Execution  string            `json:"execution"`
	Errors     []string          `json:"errors,omitempty"`
	Payloads   map[string]any    `json:"payloads,omitempty"`
	NullLeaves map[string]int    `json:"null_leaves,omitempty"`
	Requests   int               `json:"maestro_requests"`
	KubeCalls  int               `json:"kube_requests"`
}

// recordGolden runs every case of file, traced (adapter.Options.Trace) or
// not, and records what the pipeline did.
func recordGolden(t *testing.T, file string, traced bool) []byte {
	t.Helper()
	l, err := load(filepath.Join("..", file))
	if err != nil {
		out, _ := json.MarshalIndent(map[string]string{"load_error": err.Error()}, "", "  ")
		return append(out, '\n')
	}
	rec := &recorder{}
	l.wrap = func(o *adapter.Options) {
		o.Maestro = recMaestro{rec, o.Maestro}
		o.Kube = recKube{rec, o.Kube}
		o.API = recAPI{rec, o.API}
		o.Trace = traced
	}
	var steps []goldenStep
	for _, c := range l.cases {
		rec.take()
		for i, o := range l.runCase(c) {
			g := goldenStep{Case: c.name, Step: i, Calls: rec.take()}
			if o.invalid != nil {
				g.Invalid = o.invalid.Error()
			}
			if a := o.actual; a != nil {
				res := a.result
				if (res.Trace != nil) != traced {
					t.Errorf("%s, case %q, step %d: traced %v, but the result's Trace is %v", file, c.name, i, traced, res.Trace)
				}
				g.Outcomes, g.Execution, g.Payloads = res.Bundles, res.ExecutionStatus, res.Payloads
				g.NullLeaves, g.Requests, g.KubeCalls = res.NullLeaves, res.MaestroRequests, res.KubeRequests
				for _, e := range res.Errors {
					g.Errors = append(g.Errors, e.Error())
				}
			}
			steps = append(steps, g)
		}
	}
	out, err := json.MarshalIndent(steps, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(out, '\n')
}

// firstDiff shows the first differing line of two goldens, with context.
func firstDiff(want, got []byte) string {
	w, g := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return fmt.Sprintf("line %d:\n  want %s\n  got  %s", i+1, wl, gl)
		}
	}
	return "(same lines, different bytes)"
}

// recorder lists the calls the pipeline makes, in order, each with a
// short form of its answer.
type recorder struct {
	mu    sync.Mutex
	calls []string
}

func (r *recorder) add(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, fmt.Sprintf(format, args...))
}

func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.calls
	r.calls = nil
	return out
}

func answer(err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	return "ok"
}

func workSummary(w *workv1.ManifestWork) string {
	if w == nil {
		return "absent"
	}
	s := "fp=" + w.Annotations[bundles.FingerprintAnnotation]
	if w.DeletionTimestamp != nil {
		s += " deleting"
	}
	return s
}

func objSummary(o *unstructured.Unstructured) string {
	if o == nil {
		return "absent"
	}
	s := fmt.Sprintf("%s/%s fp=%s", o.GetNamespace(), o.GetName(), o.GetAnnotations()[bundles.FingerprintAnnotation])
	if o.GetDeletionTimestamp() != nil {
		s += " deleting"
	}
	return s
}

func canonical(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		return "unencodable: " + err.Error()
	}
	return string(data)
}

type recMaestro struct {
	r    *recorder
	next adapter.Maestro
}

func (m recMaestro) Get(ctx context.Context, consumer, name string) (*workv1.ManifestWork, error) {
	w, err := m.next.Get(ctx, consumer, name)
	m.r.add("maestro.Get %s/%s -> %s %s", consumer, name, workSummary(w), answer(err))
	return w, err
}

func (m recMaestro) Create(ctx context.Context, consumer string, work *workv1.ManifestWork, read adapter.CreateRead) (*workv1.ManifestWork, error) {
	w, err := m.next.Create(ctx, consumer, work, read)
	m.r.add("maestro.Create %s/%s %s -> %s", consumer, work.Name, canonical(work), answer(err))
	return w, err
}

func (m recMaestro) Update(ctx context.Context, consumer string, observed, desired *workv1.ManifestWork) (*workv1.ManifestWork, error) {
	w, err := m.next.Update(ctx, consumer, observed, desired)
	m.r.add("maestro.Update %s/%s %s -> %s", consumer, desired.Name, canonical(desired), answer(err))
	return w, err
}

func (m recMaestro) Delete(ctx context.Context, consumer, name string) error {
	err := m.next.Delete(ctx, consumer, name)
	m.r.add("maestro.Delete %s/%s -> %s", consumer, name, answer(err))
	return err
}

func (m recMaestro) Redelete(ctx context.Context, consumer, name string) error {
	err := m.next.Redelete(ctx, consumer, name)
	m.r.add("maestro.Redelete %s/%s -> %s", consumer, name, answer(err))
	return err
}

func (m recMaestro) GetBundles(ctx context.Context, keys []adapter.BundleKey) ([]*workv1.ManifestWork, error) {
	ws, err := m.next.GetBundles(ctx, keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k.Consumer + "/" + k.Name
		if i < len(ws) {
			parts[i] += " " + workSummary(ws[i])
		}
	}
	m.r.add("maestro.GetBundles [%s] -> %s", strings.Join(parts, ", "), answer(err))
	return ws, err
}

type recKube struct {
	r    *recorder
	next adapter.Kube
}

func refString(ref adapter.KubeRef) string {
	return fmt.Sprintf("%s %s %s/%s uid=%s", ref.APIVersion, ref.Kind, ref.Namespace, ref.Name, ref.UID)
}

func (k recKube) Get(ctx context.Context, ref adapter.KubeRef) (*unstructured.Unstructured, error) {
	o, err := k.next.Get(ctx, ref)
	k.r.add("kube.Get %s -> %s %s", refString(ref), objSummary(o), answer(err))
	return o, err
}

func (k recKube) List(ctx context.Context, ref adapter.KubeRef, labels map[string]string) ([]*unstructured.Unstructured, error) {
	os, err := k.next.List(ctx, ref, labels)
	parts := make([]string, len(os))
	for i, o := range os {
		parts[i] = objSummary(o)
	}
	k.r.add("kube.List %s %s -> [%s] %s", refString(ref), canonical(labels), strings.Join(parts, ", "), answer(err))
	return os, err
}

func (k recKube) Create(ctx context.Context, obj *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	sent := canonical(obj.Object)
	o, err := k.next.Create(ctx, obj)
	k.r.add("kube.Create %s -> %s", sent, answer(err))
	return o, err
}

func (k recKube) Apply(ctx context.Context, obj *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	sent := canonical(obj.Object)
	o, err := k.next.Apply(ctx, obj)
	k.r.add("kube.Apply %s -> %s", sent, answer(err))
	return o, err
}

func (k recKube) Delete(ctx context.Context, ref adapter.KubeRef, propagation string) error {
	err := k.next.Delete(ctx, ref, propagation)
	k.r.add("kube.Delete %s %s -> %s", refString(ref), propagation, answer(err))
	return err
}

type recAPI struct {
	r    *recorder
	next adapter.API
}

func (a recAPI) Do(ctx context.Context, req adapter.APIRequest) (adapter.APIResponse, error) {
	resp, err := a.next.Do(ctx, req)
	a.r.add("api %s %s body=%s -> %d %s", req.Method, req.URL, string(req.Body), resp.Status, answer(err))
	return resp, err
}
