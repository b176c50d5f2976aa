package adapter

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// discoverKube reads each kubernetes resource from the API server: the
// one authoritative read of the event for it (Get by name, or List by
// labels, where more than one match is an error naming the resource). A
// failed read fails the resource.
func (r *eventRun) discoverKube(ctx context.Context, bs []*bundle) {
	for _, b := range bs {
		if b.kube == nil || b.out.State == StateFailed {
			continue
		}
		obj, err := r.readKube(ctx, b)
		if err != nil {
			r.fail(b, kubeReasonFor(err), err)
			continue
		}
		r.observeKube(b, obj)
	}
}

// readKube reads the resource's object; nil when there is none (404, or a
// selector matching nothing).
func (r *eventRun) readKube(ctx context.Context, b *bundle) (*unstructured.Unstructured, error) {
	k := b.kube
	if k.selector == nil {
		obj, err := r.p.kube.Get(ctx, k.read)
		if errors.Is(err, ErrNotFound) {
			return nil, nil
		}
		if err == nil {
			err = k.inScope(b.res.Name, obj)
		}
		return obj, err
	}
	objs, err := r.p.kube.List(ctx, k.read, k.selector)
	switch {
	case err != nil:
		return nil, err
	case len(objs) == 0:
		return nil, nil
	case len(objs) > 1:
		names := make([]string, len(objs))
		for i, o := range objs {
			names[i] = objectName(refOfObject(o))
		}
		return nil, fmt.Errorf("resource %s: discovery.by_selectors %v matched %d %s objects (%s): it must match exactly one",
			b.res.Name, k.selector, len(objs), k.read.Kind, strings.Join(names, ", "))
	}
	return objs[0], k.inScope(b.res.Name, objs[0])
}

// observeKube records what the API server reports for the resource (nil:
// 404) and updates what CEL sees: resources.<name> is the live object,
// status included.
func (r *eventRun) observeKube(b *bundle, obj *unstructured.Unstructured) {
	b.obs = observation{obj: obj}
	if obj == nil {
		delete(r.resources, b.res.Name)
		b.kube.seen = refOfObject(b.kube.desired)
		return
	}
	b.kube.seen = refOfObject(obj)
	r.resources[b.res.Name] = obj.DeepCopy().Object
}

// inScope checks that an object the API server answered is one discovery
// asked for: the name read (by name), the namespace read (unless every
// namespace, or a cluster-scoped object), every selector label, and the
// manifest's own namespace and name. Whatever a
// server (or something in between) answers, a delete or recreate then only
// ever targets an object inside the discovery's scope.
func (k *kubeTarget) inScope(resource string, obj *unstructured.Unstructured) error {
	ns := obj.GetNamespace()
	outside := func(why string) error {
		return fmt.Errorf("resource %s: the API server answered %s %s, outside discovery's scope (%s): not acted on",
			resource, k.read.Kind, objectName(refOfObject(obj)), why)
	}
	if k.read.Namespace != "" && ns != "" && ns != k.read.Namespace {
		return outside("namespace " + k.read.Namespace)
	}
	if want := refOfObject(k.desired); ns != want.Namespace || obj.GetName() != want.Name {
		// Found by labels, or in every namespace: another object than the
		// one the manifest renders, which update would not reach and
		// delete must not touch.
		return outside("the manifest's " + objectName(want))
	}
	if k.selector == nil {
		if obj.GetName() != k.read.Name {
			return outside("name " + k.read.Name)
		}
		return nil
	}
	labels := obj.GetLabels()
	for key, v := range k.selector {
		if got, ok := labels[key]; !ok || got != v {
			return outside(fmt.Sprintf("labels %v", k.selector))
		}
	}
	return nil
}
