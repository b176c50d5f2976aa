package memkube

import (
	"context"
	"reflect"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/kubeclient/kubeerr"
)

// Apply models server-side apply with the adapter's field manager, conflicts
// forced: the object's labels, annotations and every field outside metadata
// and status become those of obj (fields obj no longer has are removed, as
// the manager owned them); finalizers obj names are added, others kept;
// status and server-set metadata stay. resourceVersion is bumped, and
// generation when anything outside metadata and status changed. It never
// creates (ErrNotFound) and refuses an object being deleted
// (ErrUnderDeletion), or labels Kubernetes does not accept (ErrInvalid),
// writing nothing then.
func (s *Store) Apply(ctx context.Context, obj *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	ref := refOf(obj)
	err := s.begin(ctx, Call{Verb: VerbApply, Ref: ref})
	defer s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	k, err := s.resolve(ref, true)
	if err != nil {
		return nil, err
	}
	live, ok := s.objects[k]
	if !ok {
		return nil, notFound("apply", ref)
	}
	if live.GetDeletionTimestamp() != nil {
		return nil, kubeerr.Wrap(adapter.ErrUnderDeletion, "memkube: apply %s: 409, it is being deleted", describe(ref))
	}
	if err := validate(VerbApply, obj); err != nil {
		return nil, err
	}
	next := merged(live, obj)
	if !reflect.DeepEqual(body(live), body(next)) {
		next.SetGeneration(live.GetGeneration() + 1)
	}
	next.SetResourceVersion(s.nextVersion())
	s.objects[k] = next
	return next.DeepCopy(), nil
}

// merged is live with obj applied over it.
func merged(live, obj *unstructured.Unstructured) *unstructured.Unstructured {
	next := obj.DeepCopy()
	meta := live.DeepCopy()
	meta.SetLabels(obj.GetLabels())
	meta.SetAnnotations(obj.GetAnnotations())
	fins := meta.GetFinalizers()
	for _, f := range obj.GetFinalizers() {
		if !slices.Contains(fins, f) {
			fins = append(fins, f)
		}
	}
	meta.SetFinalizers(fins)
	next.Object["metadata"] = meta.Object["metadata"]
	if st, ok := live.Object["status"]; ok {
		next.Object["status"] = st
	}
	if live.GetKind() == "Namespace" {
		if fins, ok, _ := unstructured.NestedStringSlice(live.Object, "spec", "finalizers"); ok {
			_ = unstructured.SetNestedStringSlice(next.Object, fins, "spec", "finalizers")
		}
	}
	return next
}

// body is the object without metadata and status: what generation counts.
func body(obj *unstructured.Unstructured) map[string]any {
	out := make(map[string]any, len(obj.Object))
	for k, v := range obj.Object {
		if k != "metadata" && k != "status" {
			out[k] = v
		}
	}
	return out
}
