package adapter

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/bundle-adapter/bundle-adapter/bundles"
)

// Reasons of a failed kubernetes resource (the decision's own reasons are
// those of the reasons table, shared with Maestro bundles).
const (
	ReasonKubernetesUnavailable = "KubernetesUnavailable"
	ReasonKubernetesError       = "KubernetesError"
)

// DefaultPropagation is the propagation of a kubernetes resource's delete
// when its rule names none.
const DefaultPropagation = "Background"

// kubeTransport applies a task's kubernetes resources (transport.client:
// kubernetes) straight to an API server (Pipeline.kube): each resource is
// one object, created, server-side applied, deleted with the rule's
// propagation and read again through Kube. The API server keeps a deletion
// until the object's finalizers are gone; sending the delete again cannot
// help, unlike Maestro's lost deletions, so a kubeTarget is no redeleter: a
// stalled object is only reported.
type kubeTransport struct{}

// kubeTarget is what a kubernetes resource (transport.client: kubernetes)
// is during one event: the rendered object with its fingerprint stamped,
// where discovery reads it, and the object discovery found.
type kubeTarget struct {
	desired *unstructured.Unstructured
	// read is what discovery reads: by name (Get of read) or, when
	// selector is set, by labels (List in read.Namespace; "" all).
	read     KubeRef
	selector map[string]string
	// seen addresses the observed object (what delete and the read after
	// it use); the desired object's address while none is observed.
	seen KubeRef
}

// resolve renders the object and its discovery. The object is rendered
// here, before discovery, as its apiVersion and kind say what to read.
func (kubeTransport) resolve(r *eventRun, b *bundle) error {
	k := &kubeTarget{}
	b.t = k
	if err := r.renderKube(b, k); err != nil {
		return err
	}
	return r.kubeDiscovery(b, k)
}

func asRenderError(err error) error {
	if _, ok := err.(*renderError); ok {
		return err
	}
	return &renderError{err}
}

// renderKube renders the object, fingerprints it (bundles.ObjectFingerprint)
// and stamps the fingerprint annotation on it.
func (r *eventRun) renderKube(b *bundle, k *kubeTarget) error {
	b.rendered = true
	ctx, cancel := r.renderContext()
	tree, err := bundles.RenderContext(ctx, b.res.Manifest.Compiled, r.data, r.now)
	cancel()
	if err != nil {
		b.renderErr = &renderError{r.templateError(ctx, err)}
		return b.renderErr
	}
	if _, err := jsonTree(tree); err != nil {
		b.renderErr = &renderError{fmt.Errorf("rendered object: %w", err)}
		return b.renderErr
	}
	obj := &unstructured.Unstructured{Object: tree}
	if obj.GetAPIVersion() == "" || obj.GetKind() == "" || obj.GetName() == "" {
		b.renderErr = &renderError{fmt.Errorf("rendered object needs apiVersion, kind and metadata.name, got %q, %q, %q", obj.GetAPIVersion(), obj.GetKind(), obj.GetName())}
		return b.renderErr
	}
	if err := checkObjectAddress(obj); err != nil {
		b.renderErr = &renderError{err}
		return b.renderErr
	}
	fp, err := bundles.ObjectFingerprint(tree)
	if err != nil {
		b.renderErr = &renderError{err}
		return b.renderErr
	}
	bundles.Stamp(tree, fp)
	k.desired, b.fingerprint = obj, fp
	b.out.Fingerprint = fp
	k.seen = refOfObject(obj)
	b.out.WorkName = objectName(k.seen)
	return nil
}

// kubeDiscovery renders where discovery reads: discovery.by_name in
// discovery.namespace (default: the object's own namespace), or
// discovery.by_selectors in discovery.namespace ("" or "*": every
// namespace), or, without discovery, the object's own address.
//
// Every namespace is the config's choice only: a discovery.namespace
// absent or written literally as "*" reads every namespace, but one that
// is a template must render a namespace name, so an event value ("*", "",
// " ", "a/b") can never widen the read (checkNamespace; RenderFailed).
func (r *eventRun) kubeDiscovery(b *bundle, k *kubeTarget) error {
	d := b.res.Discovery
	k.read = k.seen
	if d == nil {
		return nil
	}
	ns, err := r.template(&d.Namespace)
	if err != nil {
		return err
	}
	if err := checkDiscoveryNamespace(&d.Namespace, ns); err != nil {
		return err
	}
	if d.BySelectors != nil && d.ByName.T == nil {
		k.read.Name, k.read.Namespace = "", ns
		if ns == "*" {
			k.read.Namespace = ""
		}
		k.selector = make(map[string]string, len(d.BySelectors.Labels))
		for i := range d.BySelectors.Labels {
			key, value, err := r.label(&d.BySelectors.Labels[i])
			if err != nil {
				return err
			}
			if prev, dup := k.selector[key]; dup && prev != value {
				// One would silently replace the other and widen the
				// selector to objects the config did not ask for.
				return fmt.Errorf("discovery.by_selectors.label_selector: two keys render to %q, with values %q and %q", key, prev, value)
			}
			k.selector[key] = value
		}
		return nil
	}
	if k.read.Name, err = r.template(&d.ByName); err != nil {
		return err
	}
	if ns != "" && ns != "*" {
		k.read.Namespace = ns
	}
	if k.read.Name == "" {
		return fmt.Errorf("discovery.by_name rendered empty")
	}
	return checkName("discovery.by_name", k.read.Name)
}

// read reads each resource's object from the API server: the one
// authoritative read of the event for it (Get by name, or List by labels,
// where more than one match is an error naming the resource). A failed
// read fails the resource.
func (kubeTransport) read(ctx context.Context, r *eventRun, bs []*bundle) {
	for _, b := range bs {
		if b.out.State == StateFailed {
			continue
		}
		k := b.t.(*kubeTarget)
		obj, err := k.readObject(ctx, r, b)
		if err != nil {
			r.fail(b, k.reason(err), err)
			continue
		}
		r.observe(b, observation{obj: obj})
	}
}

// readKube reads the resource's object; nil when there is none (404, or a
// selector matching nothing).
func (k *kubeTarget) readObject(ctx context.Context, r *eventRun, b *bundle) (*unstructured.Unstructured, error) {
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

func (k *kubeTarget) desiredFingerprint(_ *eventRun, b *bundle) (string, error) {
	return b.fingerprint, b.renderErr
}

func (k *kubeTarget) adoptable(r *eventRun, b *bundle) bool { return r.adoptObject(b, k) }

func (k *kubeTarget) create(ctx context.Context, r *eventRun, _ *bundle, _ string) (observation, error) {
	created, err := r.p.kube.Create(ctx, k.desired.DeepCopy())
	return observation{obj: created}, err
}

// update writes the object with server-side apply.
func (k *kubeTarget) update(ctx context.Context, r *eventRun, _ *bundle) (observation, error) {
	applied, err := r.p.kube.Apply(ctx, k.desired.DeepCopy())
	return observation{obj: applied}, err
}

// delete deletes the observed object (its uid: never a newer one of the
// same name) with the rule's propagation.
func (k *kubeTarget) delete(ctx context.Context, r *eventRun, b *bundle, op Operation) error {
	return r.p.kube.Delete(ctx, k.seen, propagation(b, op))
}

func (k *kubeTarget) get(ctx context.Context, r *eventRun, _ *bundle) (observation, error) {
	obj, err := r.p.kube.Get(ctx, k.seen)
	return observation{obj: obj}, err
}

// observe records what the API server reports for the resource and
// updates what CEL sees: resources.<name> is the live object, status
// included.
func (k *kubeTarget) observe(r *eventRun, b *bundle, o observation) {
	b.obs = observation{obj: o.obj}
	if o.obj == nil {
		delete(r.resources, b.res.Name)
		k.seen = refOfObject(k.desired)
		return
	}
	k.seen = refOfObject(o.obj)
	r.resources[b.res.Name] = o.obj.DeepCopy().Object
}

// recreationKey is how the process remembers this object's recreation
// (recreations.go): its kind and address. The create that ends a
// recreation between two events is then reported recreate/done
// (Recreated), as on Maestro.
func (k *kubeTarget) recreationKey(_ *bundle) BundleKey {
	ref := refOfObject(k.desired)
	return BundleKey{Consumer: ClientKubernetes + " " + ref.APIVersion + "/" + ref.Kind, Name: objectName(ref)}
}

// reason names the reason of a failed kubernetes resource: the decision's
// own reasons, or the API server's words for a failed call.
func (k *kubeTarget) reason(err error) string {
	switch reason := reasonFor(err); reason {
	case ReasonMaestroUnavailable:
		return ReasonKubernetesUnavailable
	case ReasonMaestroError, ReasonConsumerNotRegistered:
		return ReasonKubernetesError
	default:
		return reason
	}
}

// propagation is the propagation_policy of the rule behind op, default
// Background.
func propagation(b *bundle, op Operation) string {
	lc, p := b.res.Lifecycle, ""
	switch {
	case lc == nil:
	case op == OpDelete && lc.Delete != nil:
		p = lc.Delete.PropagationPolicy
	case op == OpRecreate && lc.Recreate != nil:
		p = lc.Recreate.PropagationPolicy
	}
	if p == "" {
		return DefaultPropagation
	}
	return p
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

// refOfObject addresses obj; an observed object's uid comes along, so that
// a delete decided on it can never delete a newer object of the same name.
func refOfObject(obj *unstructured.Unstructured) KubeRef {
	return KubeRef{APIVersion: obj.GetAPIVersion(), Kind: obj.GetKind(), Namespace: obj.GetNamespace(), Name: obj.GetName(),
		UID: string(obj.GetUID())}
}

// objectName is how outcomes and logs name an object: namespace/name, or
// name for a cluster-scoped one.
func objectName(ref KubeRef) string {
	if ref.Namespace == "" {
		return ref.Name
	}
	return ref.Namespace + "/" + ref.Name
}
