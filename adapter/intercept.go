package adapter

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	workv1 "open-cluster-management.io/api/work/v1"
)

// Call is one call through a transport's client, as an Interceptor sees
// it: which client, which verb, and what it addresses.
type Call struct {
	// Client is ClientMaestro or ClientKubernetes.
	Client string
	// Verb is the method called: Get, GetBundles, Create, Update, Delete,
	// Redelete (Maestro); Get, List, Create, Apply, Delete (Kube).
	Verb string
	// Consumer and Name address a Maestro bundle; Name is namespace/name
	// of a Kubernetes object (name when cluster-scoped).
	Consumer, Name string
	// Kind is a Kubernetes object's apiVersion/kind; "" for Maestro.
	Kind string
	// Keys is how many bundles a GetBundles reads; 0 otherwise.
	Keys int
}

// Clients of Call.Client.
const (
	ClientMaestro    = "maestro"
	ClientKubernetes = "kubernetes"
)

// Interceptor runs around every call of a client wrapped by
// InterceptMaestro or InterceptKube: it must call next exactly once, with
// the context the call goes on with, and return next's error unchanged (it
// may observe it: count it, end a span with it). One interceptor serves
// both clients, so a concern (the event's request count, tracing) is
// written once for every transport, as controller-runtime's interceptor
// client does for a whole client.
type Interceptor func(ctx context.Context, c Call, next func(context.Context) error) error

// InterceptMaestro wraps m so that every call goes through in; a nil in
// returns m.
func InterceptMaestro(m Maestro, in Interceptor) Maestro {
	if in == nil {
		return m
	}
	return interceptedMaestro{next: m, in: in}
}

// InterceptKube wraps k so that every call goes through in; a nil in
// returns k.
func InterceptKube(k Kube, in Interceptor) Kube {
	if in == nil {
		return k
	}
	return interceptedKube{next: k, in: in}
}

// Chain is an interceptor that runs each of ins around the next, the first
// outermost; nil entries are skipped.
func Chain(ins ...Interceptor) Interceptor {
	var out Interceptor
	for i := len(ins) - 1; i >= 0; i-- {
		inner, outer := out, ins[i]
		if outer == nil {
			continue
		}
		if inner == nil {
			out = outer
			continue
		}
		out = func(ctx context.Context, c Call, next func(context.Context) error) error {
			return outer(ctx, c, func(ctx context.Context) error { return inner(ctx, c, next) })
		}
	}
	return out
}

type interceptedMaestro struct {
	next Maestro
	in   Interceptor
}

func maestroCall(verb, consumer, name string) Call {
	return Call{Client: ClientMaestro, Verb: verb, Consumer: consumer, Name: name}
}

func (m interceptedMaestro) Get(ctx context.Context, consumer, name string) (w *workv1.ManifestWork, err error) {
	err = m.in(ctx, maestroCall("Get", consumer, name), func(ctx context.Context) error {
		w, err = m.next.Get(ctx, consumer, name)
		return err
	})
	return w, err
}

func (m interceptedMaestro) GetBundles(ctx context.Context, keys []BundleKey) (ws []*workv1.ManifestWork, err error) {
	c := Call{Client: ClientMaestro, Verb: "GetBundles", Keys: len(keys)}
	if len(keys) > 0 {
		c.Consumer = keys[0].Consumer
		for _, k := range keys[1:] {
			if k.Consumer != c.Consumer {
				c.Consumer = ""
				break
			}
		}
	}
	err = m.in(ctx, c, func(ctx context.Context) error {
		ws, err = m.next.GetBundles(ctx, keys)
		return err
	})
	return ws, err
}

func (m interceptedMaestro) Create(ctx context.Context, consumer string, work *workv1.ManifestWork, read CreateRead) (w *workv1.ManifestWork, err error) {
	err = m.in(ctx, maestroCall("Create", consumer, work.Name), func(ctx context.Context) error {
		w, err = m.next.Create(ctx, consumer, work, read)
		return err
	})
	return w, err
}

func (m interceptedMaestro) Update(ctx context.Context, consumer string, observed, desired *workv1.ManifestWork) (w *workv1.ManifestWork, err error) {
	err = m.in(ctx, maestroCall("Update", consumer, desired.Name), func(ctx context.Context) error {
		w, err = m.next.Update(ctx, consumer, observed, desired)
		return err
	})
	return w, err
}

func (m interceptedMaestro) Delete(ctx context.Context, consumer, name string) error {
	return m.in(ctx, maestroCall("Delete", consumer, name), func(ctx context.Context) error {
		return m.next.Delete(ctx, consumer, name)
	})
}

func (m interceptedMaestro) Redelete(ctx context.Context, consumer, name string) error {
	return m.in(ctx, maestroCall("Redelete", consumer, name), func(ctx context.Context) error {
		return m.next.Redelete(ctx, consumer, name)
	})
}

type interceptedKube struct {
	next Kube
	in   Interceptor
}

func kubeCall(verb string, ref KubeRef) Call {
	return Call{Client: ClientKubernetes, Verb: verb, Name: objectName(ref), Kind: ref.APIVersion + "/" + ref.Kind}
}

func (k interceptedKube) Get(ctx context.Context, ref KubeRef) (o *unstructured.Unstructured, err error) {
	err = k.in(ctx, kubeCall("Get", ref), func(ctx context.Context) error {
		o, err = k.next.Get(ctx, ref)
		return err
	})
	return o, err
}

func (k interceptedKube) List(ctx context.Context, ref KubeRef, labels map[string]string) (os []*unstructured.Unstructured, err error) {
	err = k.in(ctx, kubeCall("List", ref), func(ctx context.Context) error {
		os, err = k.next.List(ctx, ref, labels)
		return err
	})
	return os, err
}

func (k interceptedKube) Create(ctx context.Context, obj *unstructured.Unstructured) (o *unstructured.Unstructured, err error) {
	err = k.in(ctx, kubeCall("Create", refOfObject(obj)), func(ctx context.Context) error {
		o, err = k.next.Create(ctx, obj)
		return err
	})
	return o, err
}

func (k interceptedKube) Apply(ctx context.Context, obj *unstructured.Unstructured) (o *unstructured.Unstructured, err error) {
	err = k.in(ctx, kubeCall("Apply", refOfObject(obj)), func(ctx context.Context) error {
		o, err = k.next.Apply(ctx, obj)
		return err
	})
	return o, err
}

func (k interceptedKube) Delete(ctx context.Context, ref KubeRef, propagation string) error {
	return k.in(ctx, kubeCall("Delete", ref), func(ctx context.Context) error {
		return k.next.Delete(ctx, ref, propagation)
	})
}
