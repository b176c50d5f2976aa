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

// Interceptor observes every call of a client wrapped by InterceptMaestro
// or InterceptKube: it is called before the call with its context and
// returns the context the call goes on with (a span's, say) and, when it
// wants the call's error, done (nil: nothing to do after), which is
// called once with that error after the call. It cannot change the call or
// its answer. One interceptor serves both clients, so a concern (the
// event's request count, tracing) is written once for every transport, as
// controller-runtime's interceptor client does for a whole client. A call
// through an interceptor that returns a nil done allocates nothing.
type Interceptor func(ctx context.Context, c Call) (context.Context, func(err error))

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

// Chain is an interceptor that runs each of ins in turn, the first
// outermost (its done is called last); nil entries are skipped.
func Chain(ins ...Interceptor) Interceptor {
	var live []Interceptor
	for _, in := range ins {
		if in != nil {
			live = append(live, in)
		}
	}
	if len(live) == 0 {
		return nil
	}
	return func(ctx context.Context, c Call) (context.Context, func(error)) {
		var dones []func(error)
		for _, in := range live {
			var done func(error)
			if ctx, done = in(ctx, c); done != nil {
				dones = append(dones, done)
			}
		}
		if len(dones) == 0 {
			return ctx, nil
		}
		return ctx, func(err error) {
			for i := len(dones) - 1; i >= 0; i-- {
				dones[i](err)
			}
		}
	}
}

// finish hands err to done, when set, and returns it.
func finish(done func(error), err error) error {
	if done != nil {
		done(err)
	}
	return err
}

type interceptedMaestro struct {
	next Maestro
	in   Interceptor
}

func maestroCall(verb, consumer, name string) Call {
	return Call{Client: ClientMaestro, Verb: verb, Consumer: consumer, Name: name}
}

func (m interceptedMaestro) Get(ctx context.Context, consumer, name string) (*workv1.ManifestWork, error) {
	ctx, done := m.in(ctx, maestroCall("Get", consumer, name))
	w, err := m.next.Get(ctx, consumer, name)
	return w, finish(done, err)
}

func (m interceptedMaestro) GetBundles(ctx context.Context, keys []BundleKey) ([]*workv1.ManifestWork, error) {
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
	ctx, done := m.in(ctx, c)
	ws, err := m.next.GetBundles(ctx, keys)
	return ws, finish(done, err)
}

func (m interceptedMaestro) Create(ctx context.Context, consumer string, work *workv1.ManifestWork, read CreateRead) (*workv1.ManifestWork, error) {
	ctx, done := m.in(ctx, maestroCall("Create", consumer, work.Name))
	w, err := m.next.Create(ctx, consumer, work, read)
	return w, finish(done, err)
}

func (m interceptedMaestro) Update(ctx context.Context, consumer string, observed, desired *workv1.ManifestWork) (*workv1.ManifestWork, error) {
	ctx, done := m.in(ctx, maestroCall("Update", consumer, desired.Name))
	w, err := m.next.Update(ctx, consumer, observed, desired)
	return w, finish(done, err)
}

func (m interceptedMaestro) Delete(ctx context.Context, consumer, name string) error {
	ctx, done := m.in(ctx, maestroCall("Delete", consumer, name))
	return finish(done, m.next.Delete(ctx, consumer, name))
}

func (m interceptedMaestro) Redelete(ctx context.Context, consumer, name string) error {
	ctx, done := m.in(ctx, maestroCall("Redelete", consumer, name))
	return finish(done, m.next.Redelete(ctx, consumer, name))
}

type interceptedKube struct {
	next Kube
	in   Interceptor
}

func kubeCall(verb string, ref KubeRef) Call {
	return Call{Client: ClientKubernetes, Verb: verb, Name: objectName(ref), Kind: ref.APIVersion + "/" + ref.Kind}
}

func (k interceptedKube) Get(ctx context.Context, ref KubeRef) (*unstructured.Unstructured, error) {
	ctx, done := k.in(ctx, kubeCall("Get", ref))
	o, err := k.next.Get(ctx, ref)
	return o, finish(done, err)
}

func (k interceptedKube) List(ctx context.Context, ref KubeRef, labels map[string]string) ([]*unstructured.Unstructured, error) {
	ctx, done := k.in(ctx, kubeCall("List", ref))
	os, err := k.next.List(ctx, ref, labels)
	return os, finish(done, err)
}

func (k interceptedKube) Create(ctx context.Context, obj *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	ctx, done := k.in(ctx, kubeCall("Create", refOfObject(obj)))
	o, err := k.next.Create(ctx, obj)
	return o, finish(done, err)
}

func (k interceptedKube) Apply(ctx context.Context, obj *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	ctx, done := k.in(ctx, kubeCall("Apply", refOfObject(obj)))
	o, err := k.next.Apply(ctx, obj)
	return o, finish(done, err)
}

func (k interceptedKube) Delete(ctx context.Context, ref KubeRef, propagation string) error {
	ctx, done := k.in(ctx, kubeCall("Delete", ref))
	return finish(done, k.next.Delete(ctx, ref, propagation))
}
