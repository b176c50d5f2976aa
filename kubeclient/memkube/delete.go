package memkube

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/kubeclient/kubeerr"
)

// Delete starts the deletion of the object and returns at once. With
// finalizers (or, for a Namespace under Options.HoldNamespaces, its
// spec.finalizers) it only sets deletionTimestamp (kept on a second
// Delete) and the object stays until RemoveFinalizers; otherwise it is
// gone, and a Namespace takes its objects with it. propagation must be
// "", Background, Foreground or Orphan (ErrInvalid otherwise); the
// garbage collector is modelled as finished at once. A missing object is
// ErrNotFound, and so is one whose uid differs from ref.UID when set (the
// API server's uid precondition: the observed object is gone).
func (s *Store) Delete(ctx context.Context, ref adapter.KubeRef, propagation string) error {
	err := s.begin(ctx, Call{Verb: VerbDelete, Ref: ref, Propagation: propagation})
	defer s.mu.Unlock()
	if err != nil {
		return err
	}
	switch propagation {
	case "", "Background", "Foreground", "Orphan":
	default:
		return kubeerr.Wrap(adapter.ErrInvalid, "memkube: delete %s: 400, unknown propagation policy %q", describe(ref), propagation)
	}
	k, err := s.resolve(ref, true)
	if err != nil {
		return err
	}
	obj, ok := s.objects[k]
	if !ok {
		return notFound("delete", ref)
	}
	if ref.UID != "" && string(obj.GetUID()) != ref.UID {
		return fmt.Errorf("%w: memkube: delete %s: 409, uid precondition %s, the object has uid %s",
			adapter.ErrNotFound, describe(ref), ref.UID, obj.GetUID())
	}
	if obj.GetDeletionTimestamp() != nil {
		return nil
	}
	if !s.held(obj) {
		s.remove(k)
		return nil
	}
	now := metav1.NewTime(s.clock().Truncate(1e9))
	obj.SetDeletionTimestamp(&now)
	obj.SetResourceVersion(s.nextVersion())
	if k.kind == "Namespace" {
		_ = unstructured.SetNestedField(obj.Object, "Terminating", "status", "phase")
	}
	return nil
}

// held reports what keeps a deleted object present.
func (s *Store) held(obj *unstructured.Unstructured) bool {
	if len(obj.GetFinalizers()) > 0 {
		return true
	}
	if obj.GetKind() != "Namespace" || !s.holdNamespaces {
		return false
	}
	fins, _, _ := unstructured.NestedStringSlice(obj.Object, "spec", "finalizers")
	return len(fins) > 0
}

// remove deletes k, and the objects of a Namespace. Called with mu held.
func (s *Store) remove(k objKey) {
	delete(s.objects, k)
	if k.group != "" || k.kind != "Namespace" {
		return
	}
	for other := range s.objects {
		if other.namespace == k.name {
			delete(s.objects, other)
		}
	}
}

// RemoveFinalizers removes every finalizer of the object (and a Namespace's
// spec.finalizers), as the controllers that set them do when they finish;
// an object being deleted is then gone. It is not part of adapter.Kube: the
// adapter never removes finalizers. ErrNotFound when the object is gone.
// It is not recorded as a call.
func (s *Store) RemoveFinalizers(_ context.Context, ref adapter.KubeRef) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	k, err := s.resolve(ref, true)
	if err != nil {
		return err
	}
	obj, ok := s.objects[k]
	if !ok {
		return notFound("remove finalizers of", ref)
	}
	obj.SetFinalizers(nil)
	if k.kind == "Namespace" {
		unstructured.RemoveNestedField(obj.Object, "spec", "finalizers")
	}
	if obj.GetDeletionTimestamp() != nil {
		s.remove(k)
		return nil
	}
	obj.SetResourceVersion(s.nextVersion())
	return nil
}
