package adapter

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/task"
)

// resolve renders a bundle's consumer and name. A bundle that cannot be
// addressed is failed (RenderFailed) and is not read.
func (r *eventRun) resolve(res *task.Resource) *bundle {
	if res.IsKubernetes() {
		return r.resolveKube(res)
	}
	b := &bundle{res: res}
	b.out = Outcome{Name: res.Name}
	var err error
	if b.consumer, err = r.template(&res.Transport.Maestro.TargetCluster); err == nil {
		b.workName, err = r.execute(res.WorkName())
	}
	b.out.Consumer, b.out.WorkName = b.consumer, b.workName
	if err == nil && (b.consumer == "" || b.workName == "") {
		err = fmt.Errorf("target cluster %q and bundle name %q must both be non-empty", b.consumer, b.workName)
	}
	if err != nil {
		r.fail(b, ReasonRenderFailed, &renderError{err})
	}
	return b
}

// discover reads the resolved bundles from Maestro: the one authoritative
// read of the event (pre-discovery): one GetBundles request for all of
// them, or one Get when there is only one. Each observed bundle
// becomes resources.<name> for CEL, with nested discoveries promoted. A
// failed read fails the bundles it was for.
func (r *eventRun) discover(ctx context.Context, bs []*bundle) {
	r.discoverKube(ctx, bs)
	var todo []*bundle
	for _, b := range bs {
		if b.out.State != StateFailed && b.kube == nil {
			todo = append(todo, b)
		}
	}
	if len(todo) > 1 {
		r.discoverBatch(ctx, todo)
		return
	}
	for _, b := range todo {
		work, err := r.p.maestro.Get(ctx, b.consumer, b.workName)
		if err != nil && !errors.Is(err, ErrNotFound) {
			r.fail(b, reasonFor(err), err)
			continue
		}
		r.observe(b, work)
	}
}

func (r *eventRun) discoverBatch(ctx context.Context, bs []*bundle) {
	keys := make([]BundleKey, len(bs))
	for i, b := range bs {
		keys[i] = BundleKey{Consumer: b.consumer, Name: b.workName}
	}
	works, err := r.p.maestro.GetBundles(ctx, keys)
	if err == nil && len(works) != len(bs) {
		err = fmt.Errorf("%w: %d bundles read for %d keys", ErrInvalid, len(works), len(bs))
	}
	for i, b := range bs {
		if err != nil {
			r.fail(b, reasonFor(err), err)
			continue
		}
		r.observe(b, works[i])
	}
}

// observe records what Maestro reports for the bundle (nil: 404) and
// updates what CEL sees.
func (r *eventRun) observe(b *bundle, work *workv1.ManifestWork) {
	r.observeObject(b, work, nil)
}

// observeObject is observe with obj, when not nil, the unstructured object
// of work already made (see objectView); it becomes the event's own.
func (r *eventRun) observeObject(b *bundle, work *workv1.ManifestWork, obj map[string]any) {
	b.obs = observation{work: work, viewObj: obj}
	for _, nd := range b.res.NestedDiscoveries {
		delete(r.resources, nd.Name)
	}
	if work == nil {
		delete(r.resources, b.res.Name)
		return
	}
	if obj == nil {
		var err error
		obj, err = runtime.DefaultUnstructuredConverter.ToUnstructured(work)
		if err != nil {
			r.log.Warn("cannot expose observed bundle to CEL", "bundle", b.res.Name, "error", err)
			return
		}
	}
	setWorkTypeMeta(obj)
	r.resources[b.res.Name] = obj
	for _, nd := range b.res.NestedDiscoveries {
		if m := r.nested(obj, &nd.Discovery); m != nil {
			r.resources[nd.Name] = m
		}
	}
}

// setWorkTypeMeta sets apiVersion and kind of an observed bundle's object,
// which Maestro's answers often lack, as hyperfleet-adapter's Maestro
// client does: resources.<name>.kind is "ManifestWork" there and here.
func setWorkTypeMeta(obj map[string]any) {
	obj["apiVersion"] = workv1.GroupVersion.String()
	obj["kind"] = "ManifestWork"
}

// nested finds the manifest of an observed bundle that a nested discovery
// names, enriched with that manifest's conditions and statusFeedback.
func (r *eventRun) nested(work map[string]any, d *task.Discovery) map[string]any {
	manifests, _ := lookupPath(work, "spec.workload.manifests").([]any)
	for _, m := range manifests {
		obj, ok := m.(map[string]any)
		if !ok || !r.matches(obj, d) {
			continue
		}
		out := make(map[string]any, len(obj)+2)
		for k, v := range obj {
			out[k] = v
		}
		if st := manifestStatus(work, obj); st != nil {
			out["conditions"] = st["conditions"]
			out["statusFeedback"] = st["statusFeedback"]
		}
		return out
	}
	return nil
}

// matches reports whether a manifest of an observed bundle is the one a
// nested discovery names. The namespace is a template rendered for this
// event; empty or "*" matches any namespace. A template that fails to
// render matches nothing.
func (r *eventRun) matches(obj map[string]any, d *task.Discovery) bool {
	meta, _ := obj["metadata"].(map[string]any)
	ns, err := r.template(&d.Namespace)
	if err != nil || (ns != "" && ns != "*" && orEmptyString(meta["namespace"]) != ns) {
		return false
	}
	if d.ByName.T != nil {
		name, err := r.template(&d.ByName)
		return err == nil && meta["name"] == name
	}
	if d.BySelectors == nil {
		return false
	}
	labels, _ := meta["labels"].(map[string]any)
	for i := range d.BySelectors.Labels {
		k, want, err := r.label(&d.BySelectors.Labels[i])
		if err != nil || labels[k] != want {
			return false
		}
	}
	return true
}

// label renders a selector label's key and value.
func (r *eventRun) label(l *task.Label) (key, value string, err error) {
	if key, err = r.template(&l.Key); err != nil {
		return "", "", err
	}
	value, err = r.template(&l.Value)
	return key, value, err
}

// manifestStatus finds status.resourceStatus.manifests[] for obj by name,
// namespace and kind.
func manifestStatus(work, obj map[string]any) map[string]any {
	list, _ := lookupPath(work, "status.resourceStatus.manifests").([]any)
	for _, e := range list {
		st, _ := e.(map[string]any)
		rm, _ := st["resourceMeta"].(map[string]any)
		if rm == nil {
			continue
		}
		if rm["name"] == lookupPath(obj, "metadata.name") &&
			orEmptyString(rm["namespace"]) == orEmptyString(lookupPath(obj, "metadata.namespace")) &&
			rm["kind"] == obj["kind"] {
			return st
		}
	}
	return nil
}

func orEmptyString(v any) string {
	s, _ := v.(string)
	return s
}
