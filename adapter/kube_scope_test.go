package adapter_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/config"
	"github.com/bundle-adapter/bundle-adapter/hyperfleetapi/apistub"
	"github.com/bundle-adapter/bundle-adapter/kubeclient/memkube"
)

// Scope cannot be widened by data (issue 28 #2): a discovery namespace or
// name, or the object's own, rendered from event values that comes out
// "", "*", blank or not a name fails the resource (RenderFailed) before
// any request, so a List never runs in every namespace on an event's say
// and delete.when never deletes an object of another tenant's namespace.
func TestKubernetesScopeCannotBeWidenedByData(t *testing.T) {
	long := strings.Repeat("a", 64)
	cases := []struct {
		name   string
		fields map[string]any
		// failed lists the resources that must fail RenderFailed.
		failed []string
	}{
		{"namespace *", map[string]any{"ns": "*"}, []string{"bySelector", "byName"}},
		{"namespace empty", map[string]any{"ns": ""}, []string{"bySelector", "byName"}},
		{"namespace blank", map[string]any{"ns": " "}, []string{"bySelector", "byName"}},
		{"namespace with a slash", map[string]any{"ns": "a/b"}, []string{"bySelector", "byName"}},
		{"namespace ..", map[string]any{"ns": ".."}, []string{"bySelector", "byName"}},
		{"namespace too long", map[string]any{"ns": long}, []string{"bySelector", "byName"}},
		{"namespace upper case", map[string]any{"ns": "Tenant-B"}, []string{"bySelector", "byName"}},
		{"namespace with a selector", map[string]any{"ns": "tenant-b,app!=x"}, []string{"bySelector", "byName"}},
		{"name *", map[string]any{"name": "*"}, []string{"byName"}},
		{"name empty", map[string]any{"name": ""}, []string{"byName"}},
		{"name ..", map[string]any{"name": ".."}, []string{"byName"}},
		{"name with a slash", map[string]any{"name": "x/../../y"}, []string{"byName"}},
		{"name with a newline", map[string]any{"name": "x\ny"}, []string{"byName"}},
		{"name too long", map[string]any{"name": strings.Repeat("n", 254)}, []string{"byName"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newKubeHarness(t)
			task, err := config.LoadTaskConfig("testdata/kube/scope.yaml")
			if err != nil {
				t.Fatal(err)
			}
			h.task = task
			other := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
				"metadata": map[string]any{"name": "probe-x", "namespace": "tenant-b", "labels": map[string]any{"app": "probe"}}}}
			otherSecret := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Secret",
				"metadata": map[string]any{"name": "probe-x", "namespace": "tenant-b"}}}
			if err := h.kube.Seed(other, otherSecret); err != nil {
				t.Fatal(err)
			}
			fields := map[string]any{"deleting": true, "ns": "tenant-a", "name": "probe-x"}
			for k, v := range c.fields {
				fields[k] = v
			}
			res := h.event(fields)
			for _, o := range res.Bundles {
				want := contains(c.failed, o.Name)
				if want && (o.State != adapter.StateFailed || o.Reason != adapter.ReasonRenderFailed) {
					t.Errorf("%s: %s/%s reason %q (%s), want failed RenderFailed", o.Name, o.Operation, o.State, o.Reason, o.Error)
				}
				if strings.Contains(o.WorkName, "*") {
					t.Errorf("%s reported as %q", o.Name, o.WorkName)
				}
			}
			for _, call := range h.kube.Calls() {
				if call.Ref.Namespace == "" || call.Ref.Namespace == "tenant-b" || call.Ref.Namespace == "*" {
					t.Errorf("call %s %s in namespace %q: outside the scope", call.Verb, call.Ref.Kind, call.Ref.Namespace)
				}
			}
			for _, o := range []*unstructured.Unstructured{other, otherSecret} {
				ref := adapter.KubeRef{APIVersion: "v1", Kind: o.GetKind(), Namespace: "tenant-b", Name: "probe-x"}
				if _, err := h.kube.Get(t.Context(), ref); err != nil {
					t.Errorf("tenant-b's %s: %v (deleted outside the scope)", o.GetKind(), err)
				}
			}
		})
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// straying is an API server that answers outside what was asked: List
// returns also an object of another namespace, or one without the labels
// asked for; Get returns another object than the one named.
type straying struct {
	*memkube.Store
	list func(ref adapter.KubeRef) []*unstructured.Unstructured
	get  func(ref adapter.KubeRef) *unstructured.Unstructured
}

func (s *straying) List(ctx context.Context, ref adapter.KubeRef, l map[string]string) ([]*unstructured.Unstructured, error) {
	if s.list != nil {
		return s.list(ref), nil
	}
	return s.Store.List(ctx, ref, l)
}

func (s *straying) Get(ctx context.Context, ref adapter.KubeRef) (*unstructured.Unstructured, error) {
	if s.get != nil {
		return s.get(ref), nil
	}
	return s.Store.Get(ctx, ref)
}

// A delete only ever targets an object inside the discovery's scope: an
// object a List or Get answered from outside it (another namespace, other
// labels, another name) fails the resource (KubernetesError) and is never
// deleted, whatever the server says.
func TestKubernetesObservedOutsideTheScopeIsNeverDeleted(t *testing.T) {
	cm := func(ns, name string, labels map[string]any) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": name, "namespace": ns, "labels": labels, "uid": "u-" + ns}}}
	}
	secret := func(ns, name string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Secret",
			"metadata": map[string]any{"name": name, "namespace": ns, "uid": "s-" + ns}}}
	}
	probe := map[string]any{"app": "probe"}
	cases := []struct {
		name   string
		list   func(adapter.KubeRef) []*unstructured.Unstructured
		get    func(adapter.KubeRef) *unstructured.Unstructured
		failed string
	}{
		{"List answers another namespace", func(adapter.KubeRef) []*unstructured.Unstructured {
			return []*unstructured.Unstructured{cm("tenant-b", "probe-x", probe)}
		}, nil, "bySelector"},
		{"List answers an object without the labels", func(adapter.KubeRef) []*unstructured.Unstructured {
			return []*unstructured.Unstructured{cm("tenant-a", "probe-x", map[string]any{"app": "other"})}
		}, nil, "bySelector"},
		{"List answers another name in the namespace", func(adapter.KubeRef) []*unstructured.Unstructured {
			return []*unstructured.Unstructured{cm("tenant-a", "victim", probe)}
		}, nil, "bySelector"},
		{"Get answers another namespace", nil, func(adapter.KubeRef) *unstructured.Unstructured {
			return secret("tenant-b", "probe-x")
		}, "byName"},
		{"Get answers another name", nil, func(adapter.KubeRef) *unstructured.Unstructured {
			return secret("tenant-a", "victim")
		}, "byName"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			store := memkube.New(memkube.Options{})
			task, err := config.LoadTaskConfig("testdata/kube/scope.yaml")
			if err != nil {
				t.Fatal(err)
			}
			p, err := adapter.New(adapter.Options{Task: task, Adapter: config.AdapterInfo{Name: "t", Version: "0"},
				Kube: &straying{Store: store, list: c.list, get: c.get}, API: apistub.New("v1", nil),
				LookupEnv: func(string) (string, bool) { return "", false }})
			if err != nil {
				t.Fatal(err)
			}
			res := p.Run(t.Context(), adapter.Event{ID: "ev", Type: "com.redhat.hyperfleet.cluster.reconcile", Source: "t",
				Data: map[string]any{"id": "x", "kind": "Cluster", "ns": "tenant-a", "name": "probe-x", "deleting": true}})
			for _, o := range res.Bundles {
				if o.Name == c.failed && (o.State != adapter.StateFailed || !strings.Contains(o.Error, "outside")) {
					t.Errorf("%s: %s/%s %q, want failed naming the object outside the scope", o.Name, o.Operation, o.State, o.Error)
				}
			}
			for _, call := range store.Calls() {
				if call.Verb == "delete" && call.Ref.Namespace != "tenant-a" {
					t.Errorf("delete %s %s/%s: outside the scope", call.Ref.Kind, call.Ref.Namespace, call.Ref.Name)
				}
				if call.Verb == "delete" && call.Ref.Name == "victim" {
					t.Errorf("deleted %s %s/%s, which discovery did not name", call.Ref.Kind, call.Ref.Namespace, call.Ref.Name)
				}
			}
		})
	}
}

// Every namespace stays the config's to choose: a discovery.namespace
// written literally as "*" (or absent) lists in every namespace and acts
// on what it finds there, as before.
func TestKubernetesLiteralStarStillListsEveryNamespace(t *testing.T) {
	for _, ns := range []string{`namespace: "*"`, ``} {
		t.Run(ns, func(t *testing.T) {
			path := t.TempDir() + "/task.yaml"
			src := `params:
  - {name: clusterId, source: event.id, type: string, required: true}
resources:
  - name: any
    transport: {client: kubernetes}
    manifest: {apiVersion: v1, kind: ConfigMap, metadata: {name: "probe-{{ .clusterId }}", namespace: tenant-a, labels: {app: probe}}}
    discovery:
      ` + ns + `
      by_selectors: {label_selector: {app: probe}}
`
			if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
				t.Fatal(err)
			}
			h := newKubeHarness(t)
			task, err := config.LoadTaskConfig(path)
			if err != nil {
				t.Fatal(err)
			}
			h.task = task
			h.kube.Seed(&unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
				"metadata": map[string]any{"name": "probe-x", "namespace": "tenant-a", "labels": map[string]any{"app": "probe"}}}})
			res := h.event(nil)
			if o := res.Bundles[0]; o.State == adapter.StateFailed {
				t.Fatalf("%s: %s", o.Reason, o.Error)
			}
			if calls := h.calls(); len(calls) == 0 || calls[0] != "list ConfigMap" || h.kube.Calls()[0].Ref.Namespace != "" {
				t.Errorf("calls %v, want a List in every namespace first", calls)
			}
		})
	}
}
