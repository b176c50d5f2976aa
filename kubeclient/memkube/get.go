package memkube

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8slabels "k8s.io/apimachinery/pkg/labels"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/kubeclient/kubeerr"
)

// Get returns a copy of the object, deletionTimestamp set while a deletion
// is held by finalizers; ErrNotFound once it is gone.
func (s *Store) Get(ctx context.Context, ref adapter.KubeRef) (*unstructured.Unstructured, error) {
	err := s.begin(ctx, Call{Verb: VerbGet, Ref: ref})
	defer s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	k, err := s.resolve(ref, true)
	if err != nil {
		return nil, err
	}
	obj, ok := s.objects[k]
	if !ok {
		return nil, notFound("get", ref)
	}
	return obj.DeepCopy(), nil
}

// List returns copies of the objects of ref's kind in ref.Namespace (every
// namespace when empty) carrying every label given, sorted by namespace and
// name; objects being deleted are listed too, as the API server does. A
// label key or value Kubernetes does not accept is ErrInvalid, as from the
// real client, which refuses it before any request.
func (s *Store) List(ctx context.Context, ref adapter.KubeRef, labels map[string]string) ([]*unstructured.Unstructured, error) {
	err := s.begin(ctx, Call{Verb: VerbList, Ref: ref, Labels: labels})
	defer s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if _, err := k8slabels.ValidatedSelectorFromSet(labels); err != nil {
		return nil, kubeerr.Wrap(adapter.ErrInvalid, "memkube: list %s: labels %q: %w", describe(ref), labels, err)
	}
	want, err := s.resolve(ref, false)
	if err != nil {
		return nil, err
	}
	var out []*unstructured.Unstructured
	for k, obj := range s.objects {
		if k.group != want.group || k.kind != want.kind || (want.namespace != "" && k.namespace != want.namespace) {
			continue
		}
		if hasLabels(obj.GetLabels(), labels) {
			out = append(out, obj.DeepCopy())
		}
	}
	sortObjects(out)
	return out, nil
}

func hasLabels(have, want map[string]string) bool {
	for k, v := range want {
		if got, ok := have[k]; !ok || got != v {
			return false
		}
	}
	return true
}

func notFound(verb string, ref adapter.KubeRef) error {
	return kubeerr.Wrap(adapter.ErrNotFound, "memkube: %s %s: 404", verb, describe(ref))
}
