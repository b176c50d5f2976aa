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
	return objs[0], nil
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
