package metrics

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// Kube wraps an adapter.Kube and counts calls by verb (get, list, create,
// apply, delete) and result code (the codes of the Maestro counter: ok,
// not_found, already_exists, under_deletion, unavailable, invalid, error),
// as bundle_adapter_kubernetes_requests_total. An unchanged event of a
// kubernetes resource shows as reads only.
func (m *Metrics) Kube(next adapter.Kube) adapter.Kube {
	return &kube{next: next, c: m}
}

type kube struct {
	next adapter.Kube
	c    *Metrics
}

func (x *kube) count(verb string, err error) {
	x.c.kubeRequests.WithLabelValues(verb, maestroCode(err)).Inc()
}

func (x *kube) Get(ctx context.Context, ref adapter.KubeRef) (*unstructured.Unstructured, error) {
	obj, err := x.next.Get(ctx, ref)
	x.count("get", err)
	return obj, err
}

func (x *kube) List(ctx context.Context, ref adapter.KubeRef, labels map[string]string) ([]*unstructured.Unstructured, error) {
	objs, err := x.next.List(ctx, ref, labels)
	x.count("list", err)
	return objs, err
}

func (x *kube) Create(ctx context.Context, obj *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	out, err := x.next.Create(ctx, obj)
	x.count("create", err)
	return out, err
}

func (x *kube) Apply(ctx context.Context, obj *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	out, err := x.next.Apply(ctx, obj)
	x.count("apply", err)
	return out, err
}

func (x *kube) Delete(ctx context.Context, ref adapter.KubeRef, propagation string) error {
	err := x.next.Delete(ctx, ref, propagation)
	x.count("delete", err)
	return err
}
