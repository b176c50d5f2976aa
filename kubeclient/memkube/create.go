package memkube

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/kubeclient/kubeerr"
)

// Create stores a copy of obj with a new uid, resourceVersion, generation 1
// and creationTimestamp, and returns it. An object of that name, being
// deleted or not, makes it ErrAlreadyExists and nothing is written. A name
// its kind does not accept, or a label Kubernetes does not accept, is
// ErrInvalid (the API server's 422; see validate).
func (s *Store) Create(ctx context.Context, obj *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	ref := refOf(obj)
	err := s.begin(ctx, Call{Verb: VerbCreate, Ref: ref})
	defer s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	k, err := s.resolve(ref, true)
	if err != nil {
		return nil, err
	}
	if err := validate(VerbCreate, obj); err != nil {
		return nil, err
	}
	if old, ok := s.objects[k]; ok {
		state := "exists"
		if old.GetDeletionTimestamp() != nil {
			state = "is being deleted"
		}
		return nil, kubeerr.Wrap(adapter.ErrAlreadyExists, "memkube: create %s: 409, it %s", describe(ref), state)
	}
	stored := obj.DeepCopy()
	s.stamp(stored, k)
	s.objects[k] = stored
	return stored.DeepCopy(), nil
}

// stamp sets what the API server sets on create. Called with mu held.
func (s *Store) stamp(obj *unstructured.Unstructured, k objKey) {
	obj.SetNamespace(k.namespace)
	obj.SetUID(typesUID(s.nextUID()))
	obj.SetResourceVersion(s.nextVersion())
	obj.SetGeneration(1)
	obj.SetCreationTimestamp(metav1.NewTime(s.clock().Truncate(1e9)))
	obj.SetDeletionTimestamp(nil)
	if k.group == "" && k.kind == "Namespace" {
		_ = unstructured.SetNestedStringSlice(obj.Object, []string{"kubernetes"}, "spec", "finalizers")
		_ = unstructured.SetNestedField(obj.Object, "Active", "status", "phase")
	}
}
