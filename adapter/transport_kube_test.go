package adapter_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/bundles"
	"github.com/bundle-adapter/bundle-adapter/config"
	"github.com/bundle-adapter/bundle-adapter/hyperfleetapi/apistub"
	"github.com/bundle-adapter/bundle-adapter/kubeclient/memkube"
	"github.com/bundle-adapter/bundle-adapter/task"
)

// kubeHarness runs the real pipeline against the in-memory API server.
type kubeHarness struct {
	t    *testing.T
	kube *memkube.Store
	api  *apistub.Stub
	now  time.Time
	task *task.TaskConfig
	// fields are event data fields a test case sets up.
	fields map[string]any
}

func newKubeHarness(t *testing.T) *kubeHarness {
	t.Helper()
	h := &kubeHarness{t: t, now: t0, api: apistub.New("v1", nil)}
	h.kube = memkube.New(memkube.Options{Clock: func() time.Time { return h.now }})
	task, err := config.LoadTaskConfig("testdata/kube/task.yaml")
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	h.task = task
	return h
}

func (h *kubeHarness) event(fields map[string]any) *adapter.Result {
	h.t.Helper()
	data := map[string]any{"id": "x", "kind": "Cluster", "generation": int64(1)}
	for k, v := range fields {
		data[k] = v
	}
	p, err := adapter.New(adapter.Options{
		Task: h.task, Adapter: config.AdapterInfo{Name: "test-adapter", Version: "0"},
		Kube: h.kube, API: h.api, Clock: func() time.Time { return h.now },
		LookupEnv: func(string) (string, bool) { return "", false },
	})
	if err != nil {
		h.t.Fatal(err)
	}
	h.kube.ResetCalls()
	return p.Run(context.Background(), adapter.Event{ID: "ev-1", Type: "com.redhat.hyperfleet.cluster.reconcile", Source: "test", Data: data})
}

// calls lists the API server calls of the last event.
func (h *kubeHarness) calls() []string {
	var out []string
	for _, c := range h.kube.Calls() {
		s := c.Verb + " " + c.Ref.Kind
		if c.Propagation != "" {
			s += " " + c.Propagation
		}
		out = append(out, s)
	}
	return out
}

func (h *kubeHarness) status() map[string]any {
	h.t.Helper()
	calls := h.api.Calls()
	if len(calls) == 0 {
		h.t.Fatal("no status PUT")
	}
	return calls[len(calls)-1].Body.(map[string]any)
}

var (
	nsRef  = adapter.KubeRef{APIVersion: "v1", Kind: "Namespace", Name: "ns-x"}
	cfgRef = adapter.KubeRef{APIVersion: "v1", Kind: "ConfigMap", Namespace: "ns-x", Name: "settings"}
)

// What only the kubernetes transport does, event after event (the decision
// itself is TestLifecycleBothTransports'): one read each (Get by name, List
// by labels), each delete with its rule's propagation, and CEL sees the live
// objects with their status.
func TestKubernetesPropagationReadsAndCEL(t *testing.T) {
	h := newKubeHarness(t)
	steps := []struct {
		name      string
		fields    map[string]any
		ops       string
		calls     []string
		phase     string
		rev       string
		gen       int64
		nsPresent bool
	}{
		{"absent: create both", nil, "create/done create/done",
			[]string{"get Namespace", "list ConfigMap", "create Namespace", "create ConfigMap"}, "Active", "1", 1, true},
		{"same event: no write", nil, "unchanged/done unchanged/done",
			[]string{"get Namespace", "list ConfigMap"}, "Active", "1", 1, true},
		{"content changed: apply in place", map[string]any{"rev": "2"}, "unchanged/done update/done",
			[]string{"get Namespace", "list ConfigMap", "apply ConfigMap"}, "Active", "2", 2, true},
		{"deleting: the ConfigMap first (Foreground), the Namespace waits for it", map[string]any{"rev": "2", "deleting": true}, "unchanged/done delete/done",
			[]string{"get Namespace", "list ConfigMap", "delete ConfigMap Foreground", "get ConfigMap"}, "Active", "", 0, true},
		{"deleting: then the Namespace (Background)", map[string]any{"rev": "2", "deleting": true}, "delete/done delete/done",
			[]string{"get Namespace", "list ConfigMap", "delete Namespace Background", "get Namespace"}, "", "", 0, false},
		{"deleting, all gone: no write", map[string]any{"rev": "2", "deleting": true}, "delete/done delete/done",
			[]string{"get Namespace", "list ConfigMap"}, "", "", 0, false},
	}
	for _, s := range steps {
		res := h.event(s.fields)
		st := h.status()
		if st["ops"] != s.ops {
			t.Errorf("%s: ops %v, want %s (bundles %+v)", s.name, st["ops"], s.ops, res.Bundles)
		}
		if strings.Join(h.calls(), ", ") != strings.Join(s.calls, ", ") {
			t.Errorf("%s: calls\n got  %v\n want %v", s.name, h.calls(), s.calls)
		}
		if st["phase"] != s.phase || st["rev"] != s.rev || fmt.Sprint(st["generation"]) != fmt.Sprint(s.gen) {
			t.Errorf("%s: CEL saw phase %v rev %v generation %v, want %s %s %d", s.name, st["phase"], st["rev"], st["generation"], s.phase, s.rev, s.gen)
		}
		if _, err := h.kube.Get(context.Background(), nsRef); (err == nil) != s.nsPresent {
			t.Errorf("%s: namespace present = %v, want %v", s.name, err == nil, s.nsPresent)
		}
		if res.Disposition() != adapter.Ack {
			t.Errorf("%s: disposition %v, want ack", s.name, res.Disposition())
		}
	}
}

// The fingerprint of the rendered object is stamped on the applied object
// as an annotation and reported in the outcome.
func TestKubernetesFingerprintStampedOnTheObject(t *testing.T) {
	h := newKubeHarness(t)
	res := h.event(nil)
	obj, err := h.kube.Get(context.Background(), cfgRef)
	if err != nil {
		t.Fatal(err)
	}
	fp := obj.GetAnnotations()[bundles.FingerprintAnnotation]
	o := res.Bundles[1]
	if fp == "" || fp != o.Fingerprint {
		t.Errorf("annotation %q, outcome fingerprint %q: want the same, non-empty", fp, o.Fingerprint)
	}
	if o.WorkName != "ns-x/settings" {
		t.Errorf("outcome names the object %q, want ns-x/settings", o.WorkName)
	}
}

// Failures name the resource and say whether a retry can help.
func TestKubernetesFailureReasons(t *testing.T) {
	tests := []struct {
		name        string
		setup       func(h *kubeHarness)
		bundle      int
		reason      string
		disposition adapter.Disposition
		errHas      string
	}{
		{"API server unavailable", func(h *kubeHarness) {
			h.kube.FailNext(memkube.VerbGet, 1, fmt.Errorf("%w: connection refused", adapter.ErrUnavailable))
		}, 0, adapter.ReasonKubernetesUnavailable, adapter.Retry, "connection refused"},
		{"selector matching two objects", func(h *kubeHarness) {
			for _, name := range []string{"settings", "settings-copy"} {
				cm := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
					"metadata": map[string]any{"name": name, "namespace": "ns-x", "labels": map[string]any{"app": "settings", "cluster": "x"}}}}
				if err := h.kube.Seed(cm); err != nil {
					h.t.Fatal(err)
				}
			}
		}, 1, adapter.ReasonKubernetesError, adapter.Retry, "resource cfg: discovery.by_selectors map[app:settings cluster:x] matched 2 ConfigMap objects (ns-x/settings, ns-x/settings-copy)"},
		{"selector keys rendering alike with different values", func(h *kubeHarness) {
			h.fields = map[string]any{"clusterLabel": "app"}
		}, 1, adapter.ReasonRenderFailed, adapter.Retry, `discovery.by_selectors.label_selector: two keys render to "app", with values "settings" and "x"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newKubeHarness(t)
			tt.setup(h)
			res := h.event(h.fields)
			o := res.Bundles[tt.bundle]
			for _, c := range h.kube.Calls() {
				if tt.reason == adapter.ReasonRenderFailed && c.Ref.Kind == "ConfigMap" {
					t.Errorf("call %s %+v: a resource that failed to render is neither read nor written", c.Verb, c.Ref)
				}
			}
			if o.State != adapter.StateFailed || o.Reason != tt.reason || !strings.Contains(o.Error, tt.errHas) {
				t.Errorf("outcome %s/%s %s %q, want failed %s containing %q", o.Operation, o.State, o.Reason, o.Error, tt.reason, tt.errHas)
			}
			if res.Disposition() != tt.disposition {
				t.Errorf("disposition %v, want %v", res.Disposition(), tt.disposition)
			}
		})
	}
}

// A task of kubernetes resources only needs Options.Kube, not Maestro; one
// without Kube is refused when the pipeline is built.
func TestKubernetesTaskNeedsNoMaestro(t *testing.T) {
	h := newKubeHarness(t)
	_, err := adapter.New(adapter.Options{Task: h.task, API: h.api})
	if err == nil || !strings.Contains(err.Error(), "Options.Kube is required") {
		t.Errorf("New without Kube: %v", err)
	}
	if _, err := adapter.New(adapter.Options{Task: h.task, API: h.api, Kube: h.kube}); err != nil {
		t.Errorf("New with Kube and without Maestro: %v", err)
	}
}

// A recreate whose create meets a 409 (another replica created the object
// between the 404 and the create) is pending, not failed: the next event
// sees the object and its fingerprint.
func TestKubernetesRecreateRacedIsPending(t *testing.T) {
	h := newKubeHarness(t)
	old := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Namespace",
		"metadata": map[string]any{"name": "ns-x", "annotations": map[string]any{bundles.FingerprintAnnotation: "stale"}},
	}}
	if err := h.kube.Seed(old); err != nil {
		t.Fatal(err)
	}
	h.kube.FailNext(memkube.VerbCreate, 1, fmt.Errorf("%w: raced", adapter.ErrAlreadyExists))
	res := h.event(map[string]any{"recreate": true})
	wantOutcome(t, res.Bundles[0], adapter.OpRecreate, adapter.StatePending, adapter.ReasonRecreationPending)
	want := "get Namespace, list ConfigMap, delete Namespace Orphan, get Namespace, create Namespace, create ConfigMap"
	if got := strings.Join(h.calls(), ", "); got != want {
		t.Errorf("calls\n got  %s\n want %s", got, want)
	}
}
