package kubecontract

import (
	"context"
	"testing"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// clusterScoped: a Namespace (cluster-scoped, namespace "") goes through
// Create, Get, Apply, List and Delete like a namespaced object.
func clusterScoped(t *testing.T, h Harness) {
	ctx := testContext(t, h)
	name := unique("contract-ns")
	created := mustCreate(t, ctx, h, Namespace(name, "fp-one", map[string]string{LabelRun: name, "tier": "one"}))
	ref := RefOf(created)
	if ref.Namespace != "" {
		t.Errorf("created Namespace has namespace %q, want none", ref.Namespace)
	}
	got := mustGet(t, ctx, h, ref)
	if got.GetUID() != created.GetUID() {
		t.Errorf("Get uid %q, want %q", got.GetUID(), created.GetUID())
	}
	if _, err := h.Kube.Apply(ctx, Namespace(name, "fp-two", map[string]string{LabelRun: name, "tier": "two"})); err != nil {
		t.Fatalf("Apply Namespace: %v", err)
	}
	got = mustGet(t, ctx, h, ref)
	if got.GetLabels()["tier"] != "two" || fingerprintOf(got) != "fp-two" {
		t.Errorf("after Apply: labels %v fingerprint %q, want tier=two fp-two", got.GetLabels(), fingerprintOf(got))
	}
	objs, err := h.Kube.List(ctx, adapter.KubeRef{APIVersion: "v1", Kind: "Namespace"}, map[string]string{LabelRun: name})
	if err != nil {
		t.Fatalf("List Namespaces: %v", err)
	}
	if len(objs) != 1 || objs[0].GetName() != name {
		t.Errorf("List Namespaces by label = %d objects, want exactly %s", len(objs), name)
	}
	mustDelete(t, ctx, h, ref, "")
	eventuallyGone(t, ctx, h, ref, "Namespace deletion")
}

// unknownKind: a kind the API server does not serve is refused as invalid by
// every call, without retry being worth it.
func unknownKind(t *testing.T, h Harness) {
	ctx := testContext(t, h)
	ref := adapter.KubeRef{APIVersion: "contract.bundle-adapter.invalid/v1", Kind: "Nothing", Namespace: h.Namespace, Name: unique("nothing")}
	obj := ConfigMap(ref.Namespace, ref.Name, "fp", nil, nil)
	obj.SetAPIVersion(ref.APIVersion)
	obj.SetKind(ref.Kind)
	calls := []struct {
		name string
		call func(context.Context) error
	}{
		{"Get", func(ctx context.Context) error { _, err := h.Kube.Get(ctx, ref); return err }},
		{"List", func(ctx context.Context) error { _, err := h.Kube.List(ctx, ref, nil); return err }},
		{"Create", func(ctx context.Context) error { _, err := h.Kube.Create(ctx, obj.DeepCopy()); return err }},
		{"Apply", func(ctx context.Context) error { _, err := h.Kube.Apply(ctx, obj.DeepCopy()); return err }},
		{"Delete", func(ctx context.Context) error { return h.Kube.Delete(ctx, ref, "") }},
	}
	for _, c := range calls {
		t.Run(c.name, func(t *testing.T) {
			wantErr(t, c.name+" of an unknown kind", c.call(ctx), adapter.ErrInvalid)
		})
	}
}
