package adapter

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/bundle-adapter/bundle-adapter/bundles"
	"github.com/bundle-adapter/bundle-adapter/task"
)

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

// resolveKube renders a kubernetes resource and its discovery. The object
// is rendered here, before discovery, as its apiVersion and kind say what
// to read; a resource that cannot be rendered or addressed is failed
// (RenderFailed) and is not read.
func (r *eventRun) resolveKube(res *task.Resource) *bundle {
	b := &bundle{res: res, kube: &kubeTarget{}}
	b.out = Outcome{Name: res.Name}
	err := r.renderKube(b)
	if err == nil {
		err = r.kubeDiscovery(b)
	}
	if err != nil {
		r.fail(b, ReasonRenderFailed, asRenderError(err))
	}
	return b
}

func asRenderError(err error) error {
	if _, ok := err.(*renderError); ok {
		return err
	}
	return &renderError{err}
}

// renderKube renders the object, fingerprints it (bundles.ObjectFingerprint)
// and stamps the fingerprint annotation on it.
func (r *eventRun) renderKube(b *bundle) error {
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
	b.kube.desired, b.fingerprint = obj, fp
	b.out.Fingerprint = fp
	b.kube.seen = refOfObject(obj)
	b.out.WorkName = objectName(b.kube.seen)
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
func (r *eventRun) kubeDiscovery(b *bundle) error {
	k, d := b.kube, b.res.Discovery
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
