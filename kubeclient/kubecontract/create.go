package kubecontract

import (
	"errors"
	"maps"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

func getMissing(t *testing.T, h Harness) {
	ctx := testContext(t, h)
	ref := RefOf(ConfigMap(h.Namespace, unique("missing"), "fp", nil, nil))
	_, err := h.Kube.Get(ctx, ref)
	wantErr(t, "Get of an object never created", err, adapter.ErrNotFound)
}

func createThenGet(t *testing.T, h Harness) {
	ctx := testContext(t, h)
	desired := ConfigMap(h.Namespace, unique("create"), "fp-one", map[string]string{"revision": "one"}, nil)
	created := mustCreate(t, ctx, h, desired)
	if created.GetUID() == "" || created.GetResourceVersion() == "" {
		t.Errorf("Create returned %s: want a uid and a resourceVersion", summary(created))
	}
	if created.GetName() != desired.GetName() || created.GetNamespace() != h.Namespace {
		t.Errorf("Create returned %s/%s, want %s/%s", created.GetNamespace(), created.GetName(), h.Namespace, desired.GetName())
	}
	got := mustGet(t, ctx, h, RefOf(desired))
	if got.GetUID() != created.GetUID() {
		t.Errorf("Get uid %q differs from the uid %q Create returned", got.GetUID(), created.GetUID())
	}
	if got.GetDeletionTimestamp() != nil {
		t.Errorf("a fresh object has deletionTimestamp %v", got.GetDeletionTimestamp())
	}
	if fp := fingerprintOf(got); fp != "fp-one" {
		t.Errorf("fingerprint annotation = %q, want %q", fp, "fp-one")
	}
	if d := dataOf(got); d["revision"] != "one" {
		t.Errorf("data = %v, want revision=one", d)
	}
	if got.GetAPIVersion() != "v1" || got.GetKind() != "ConfigMap" {
		t.Errorf("Get returned apiVersion %q kind %q, want v1 ConfigMap", got.GetAPIVersion(), got.GetKind())
	}
}

func createExisting(t *testing.T, h Harness) {
	ctx := testContext(t, h)
	name := unique("create-twice")
	first := mustCreate(t, ctx, h, ConfigMap(h.Namespace, name, "fp-one", map[string]string{"revision": "one"}, nil))
	_, err := h.Kube.Create(ctx, ConfigMap(h.Namespace, name, "fp-two", map[string]string{"revision": "two"}, nil))
	wantErr(t, "second Create of one name", err, adapter.ErrAlreadyExists)
	got := mustGet(t, ctx, h, RefOf(first))
	if got.GetUID() != first.GetUID() || dataOf(got)["revision"] != "one" || fingerprintOf(got) != "fp-one" {
		t.Errorf("the refused Create wrote: %s data %v fingerprint %q", summary(got), dataOf(got), fingerprintOf(got))
	}
}

func createWhileDeleting(t *testing.T, h Harness) {
	ctx := testContext(t, h)
	name := unique("create-deleting")
	old := mustCreate(t, ctx, h, ConfigMap(h.Namespace, name, "fp-old", map[string]string{"revision": "old"}, nil, Finalizer))
	ref := RefOf(old)
	mustDelete(t, ctx, h, ref, "")
	mustBeDeleting(t, ctx, h, ref)

	_, err := h.Kube.Create(ctx, ConfigMap(h.Namespace, name, "fp-new", map[string]string{"revision": "new"}, nil))
	wantErr(t, "Create while the old object is being deleted", err, adapter.ErrAlreadyExists)
	got := mustBeDeleting(t, ctx, h, ref)
	if got.GetUID() != old.GetUID() || !maps.Equal(dataOf(got), map[string]string{"revision": "old"}) {
		t.Errorf("the refused Create replaced the deleting object: %s data %v", summary(got), dataOf(got))
	}

	if err := h.RemoveFinalizers(ctx, ref); err != nil {
		t.Fatalf("RemoveFinalizers: %v", err)
	}
	eventuallyGone(t, ctx, h, ref, "deletion released")
	again, err := h.Kube.Create(ctx, ConfigMap(h.Namespace, name, "fp-new", map[string]string{"revision": "new"}, nil))
	if err != nil {
		t.Fatalf("Create after the old object is gone: %v", err)
	}
	if again.GetUID() == old.GetUID() {
		t.Errorf("the object created after the deletion has the old uid %q", old.GetUID())
	}
}

// createInvalid: an object whose name its kind does not accept, or with a
// label Kubernetes does not accept, is ErrInvalid (422) naming the value,
// and nothing is written; an invalid label in an Apply is refused too.
func createInvalid(t *testing.T, h Harness) {
	ctx := testContext(t, h)
	run := unique("invalid")
	cases := []struct {
		name  string
		obj   *unstructured.Unstructured
		names string
	}{
		{"a ConfigMap name with an underscore", ConfigMap(h.Namespace, run+"_x", "fp", nil, nil), run + "_x"},
		{"a ConfigMap name with upper case", ConfigMap(h.Namespace, run+"-X", "fp", nil, nil), run + "-X"},
		{"a Namespace name with a dot", Namespace(run+".x", "fp", nil), run + ".x"},
		{"a label value with a comma", ConfigMap(h.Namespace, run+"-label", "fp", nil, map[string]string{LabelRun: "a,b"}), "a,b"},
		{"a label key with a space", ConfigMap(h.Namespace, run+"-key", "fp", nil, map[string]string{"a b": "x"}), "a b"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Cleanup(func() { cleanup(t, h, RefOf(c.obj)) }) // were it written
			_, err := h.Kube.Create(ctx, c.obj)
			wantErr(t, "Create of "+c.name, err, adapter.ErrInvalid)
			if err != nil && !strings.Contains(err.Error(), c.names) {
				t.Errorf("Create of %s: error does not name %q: %v", c.name, c.names, err)
			}
			if _, err := h.Kube.Get(ctx, RefOf(c.obj)); !errors.Is(err, adapter.ErrNotFound) {
				t.Errorf("after the refused Create of %s, Get: %v, want ErrNotFound", c.name, err)
			}
		})
	}
	t.Run("an Apply with a label value with a comma", func(t *testing.T) {
		live := mustCreate(t, ctx, h, ConfigMap(h.Namespace, run+"-apply", "fp", nil, map[string]string{LabelRun: run}))
		_, err := h.Kube.Apply(ctx, ConfigMap(h.Namespace, run+"-apply", "fp", nil, map[string]string{LabelRun: "a,b"}))
		wantErr(t, "Apply with an invalid label", err, adapter.ErrInvalid)
		if got := mustGet(t, ctx, h, RefOf(live)); got.GetLabels()[LabelRun] != run {
			t.Errorf("the refused Apply wrote labels %v", got.GetLabels())
		}
	})
}
