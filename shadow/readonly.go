package shadow

import (
	"context"
	"net/http"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// Maestro returns a read-only adapter.Maestro over m: Get and GetBundles
// are m's; Create, Update, Delete and Redelete are recorded and never
// reach m. Create and Update answer a copy of the desired bundle, Delete
// and Redelete nil.
func Maestro(m adapter.Maestro) adapter.Maestro { return readOnlyMaestro{m} }

type readOnlyMaestro struct{ m adapter.Maestro }

func (r readOnlyMaestro) Get(ctx context.Context, consumer, name string) (*workv1.ManifestWork, error) {
	return r.m.Get(ctx, consumer, name)
}

func (r readOnlyMaestro) GetBundles(ctx context.Context, keys []adapter.BundleKey) ([]*workv1.ManifestWork, error) {
	return r.m.GetBundles(ctx, keys)
}

func (r readOnlyMaestro) Create(ctx context.Context, consumer string, work *workv1.ManifestWork, read adapter.CreateRead) (*workv1.ManifestWork, error) {
	record(ctx, Write{Boundary: "maestro", Verb: "create", Consumer: consumer, Name: work.Name, Diff: []string{absent}})
	return work.DeepCopy(), nil
}

func (r readOnlyMaestro) Update(ctx context.Context, consumer string, observed, desired *workv1.ManifestWork) (*workv1.ManifestWork, error) {
	record(ctx, Write{Boundary: "maestro", Verb: "update", Consumer: consumer, Name: desired.Name, Diff: workDiff(desired, observed)})
	out := desired.DeepCopy()
	out.UID, out.ResourceVersion, out.Generation = observed.UID, observed.ResourceVersion, observed.Generation
	return out, nil
}

func (r readOnlyMaestro) Delete(ctx context.Context, consumer, name string) error {
	record(ctx, Write{Boundary: "maestro", Verb: "delete", Consumer: consumer, Name: name})
	return nil
}

func (r readOnlyMaestro) Redelete(ctx context.Context, consumer, name string) error {
	record(ctx, Write{Boundary: "maestro", Verb: "redelete", Consumer: consumer, Name: name})
	return nil
}

// Kube returns a read-only adapter.Kube over k: Get and List are k's;
// Create, Apply and Delete are recorded and never reach k. Create and
// Apply answer a copy of the object, Delete nil. Apply reads the live
// object (a Get) to name the fields that differ.
func Kube(k adapter.Kube) adapter.Kube { return readOnlyKube{k} }

type readOnlyKube struct{ k adapter.Kube }

func (r readOnlyKube) Get(ctx context.Context, ref adapter.KubeRef) (*unstructured.Unstructured, error) {
	return r.k.Get(ctx, ref)
}

func (r readOnlyKube) List(ctx context.Context, ref adapter.KubeRef, labels map[string]string) ([]*unstructured.Unstructured, error) {
	return r.k.List(ctx, ref, labels)
}

func (r readOnlyKube) Create(ctx context.Context, obj *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	record(ctx, Write{Boundary: "kubernetes", Verb: "create", Namespace: obj.GetNamespace(), Name: obj.GetName(), Diff: []string{absent}})
	return obj.DeepCopy(), nil
}

func (r readOnlyKube) Apply(ctx context.Context, obj *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	ref := adapter.KubeRef{APIVersion: obj.GetAPIVersion(), Kind: obj.GetKind(), Namespace: obj.GetNamespace(), Name: obj.GetName()}
	var diff []string
	live, err := r.k.Get(ctx, ref)
	switch {
	case err != nil:
		diff = []string{"(live object not read: " + err.Error() + ")"}
	default:
		diff = objectDiff(obj.Object, live.Object)
	}
	record(ctx, Write{Boundary: "kubernetes", Verb: "apply", Namespace: ref.Namespace, Name: ref.Name, Diff: diff})
	out := obj.DeepCopy()
	if err == nil {
		out.SetUID(live.GetUID())
		out.SetResourceVersion(live.GetResourceVersion())
	}
	return out, nil
}

func (r readOnlyKube) Delete(ctx context.Context, ref adapter.KubeRef, propagation string) error {
	record(ctx, Write{Boundary: "kubernetes", Verb: "delete", Namespace: ref.Namespace, Name: ref.Name})
	return nil
}

// API returns a read-only adapter.API over a: GET and HEAD requests are
// a's; any other method is recorded and answered 200 with "{}" without
// reaching a.
func API(a adapter.API) adapter.API { return readOnlyAPI{a} }

type readOnlyAPI struct{ a adapter.API }

func (r readOnlyAPI) Do(ctx context.Context, req adapter.APIRequest) (adapter.APIResponse, error) {
	if isRead(req.Method) {
		return r.a.Do(ctx, req)
	}
	record(ctx, Write{Boundary: "api", Verb: req.Method, URL: req.URL, Body: append([]byte(nil), req.Body...), Headers: req.Headers})
	return adapter.APIResponse{Status: http.StatusOK, Body: []byte("{}")}, nil
}

// isRead reports whether an HTTP method is a read: GET or HEAD in any
// case, or none (net/http sends GET).
func isRead(method string) bool {
	return method == "" || strings.EqualFold(method, http.MethodGet) || strings.EqualFold(method, http.MethodHead)
}
