package memmaestro

import (
	"context"

	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// Get returns a deep copy of the work, deletionTimestamp included while a
// deletion is pending. It returns adapter.ErrNotFound when the work does not
// exist, was confirmed deleted, or the consumer is not registered.
func (s *Store) Get(ctx context.Context, consumer, name string) (*workv1.ManifestWork, error) {
	if err := s.begin(ctx, VerbGet, consumer, name); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	w, ok := s.works[key{consumer, name}]
	if !ok {
		return nil, callError(VerbGet, consumer, name, adapter.ErrNotFound, "")
	}
	return w.DeepCopy(), nil
}
