package adapter

import (
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/bundles"
	"github.com/bundle-adapter/bundle-adapter/task"
)

// setWorkTypeMeta sets apiVersion and kind of an observed bundle's object,
// which Maestro's answers often lack, as hyperfleet-adapter's Maestro
// client does: resources.<name>.kind is "ManifestWork" there and here.
func setWorkTypeMeta(obj map[string]any) {
	obj["apiVersion"] = workv1.GroupVersion.String()
	obj["kind"] = "ManifestWork"
}

// hideWriteID removes the view's write id (bundles.WriteIDAnnotation) from
// an observed bundle's object: it is the view's bookkeeping of its own
// creates, random for each create, and present only with the view on, so
// CEL, templates and status payloads see the bundle as they would without
// the view (TestViewDecidesAsReads compares the payloads). The work the
// object came from keeps it.
func hideWriteID(obj map[string]any) {
	md, _ := obj["metadata"].(map[string]any)
	ann, _ := md["annotations"].(map[string]any)
	if _, ok := ann[bundles.WriteIDAnnotation]; !ok {
		return
	}
	delete(ann, bundles.WriteIDAnnotation)
	if len(ann) == 0 {
		delete(md, "annotations")
	}
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
