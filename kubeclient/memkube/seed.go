package memkube

import (
	"fmt"
	"strconv"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
)

func typesUID(s string) types.UID { return types.UID(s) }

// Seed stores objects as they are, as if they existed on the cluster
// (status, uid, resourceVersion, deletionTimestamp and finalizers kept);
// a missing uid, resourceVersion or generation is filled in. A kind the
// store does not serve, an object without a name, or one in a namespace
// that is not a namespace name ("*"), is an error naming the object;
// nothing is stored then.
func (s *Store) Seed(objs ...*unstructured.Unstructured) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	keys := make([]objKey, len(objs))
	for i, obj := range objs {
		k, err := s.resolve(refOf(obj), true)
		if err != nil {
			return fmt.Errorf("seed object %d (%s %q): %w", i, obj.GetKind(), obj.GetName(), err)
		}
		if msg := checkNamespace(k.namespace); msg != "" {
			return fmt.Errorf("seed object %d (%s %q): %s", i, obj.GetKind(), obj.GetName(), msg)
		}
		keys[i] = k
	}
	for i, obj := range objs {
		stored := obj.DeepCopy()
		if stored.GetUID() == "" {
			stored.SetUID(typesUID(s.nextUID()))
		}
		if rv, err := strconv.ParseInt(stored.GetResourceVersion(), 10, 64); err == nil && rv > s.version {
			s.version = rv
		} else if err != nil {
			stored.SetResourceVersion(s.nextVersion())
		}
		if stored.GetGeneration() == 0 {
			stored.SetGeneration(1)
		}
		s.objects[keys[i]] = stored
	}
	return nil
}
