package memmaestro

import (
	"context"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// Redelete sends the delete of a work again, as Maestro does for a work
// already being deleted: the deletionTimestamp stays the first request's,
// and the deletion reaches the simulated agent once more. Under
// DeleteImmediate a work not marked stuck is then removed (the agent that
// lost the first request confirms this one); under DeletePending it stays.
// A work not being deleted is deleted as by Delete. A missing work returns
// adapter.ErrNotFound.
func (s *Store) Redelete(ctx context.Context, consumer, name string) error {
	if err := s.begin(ctx, VerbRedelete, consumer, name); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	k := key{consumer, name}
	w, ok := s.works[k]
	switch {
	case !ok:
		return callError(VerbRedelete, consumer, name, adapter.ErrNotFound, "")
	case s.deleteBehavior == DeleteImmediate && !s.stuck[k]:
		delete(s.works, k)
	case w.DeletionTimestamp == nil:
		markDeleting(w, s.now())
	}
	return nil
}
