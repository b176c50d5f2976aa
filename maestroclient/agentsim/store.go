package agentsim

import (
	"context"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	workv1 "open-cluster-management.io/api/work/v1"
	"open-cluster-management.io/sdk-go/pkg/cloudevents/clients/work/store"
)

// guardedStore is sdk-go's agent work store (AgentInformerWatcherStore)
// with every write serialized, and no write of the agent's own (a status
// patch's) that would take a deleting work back to live.
//
// sdk-go's store writes in three unlocked steps (a new resource version,
// the watch event, then the cache), HandleReceivedResource reads the
// cached work before it writes, and ManifestWorkAgentClient.Patch checks the
// cached version after its publish, under a lock the store does not take.
// A status patch in flight when a delete event arrives can so store the
// work as it was before the delete: the informer sees the work deleting,
// then live again (same uid, same generation), and the deletion is
// forgotten (issue 48; maestroclient TestAgentStatusPatchUndoesADeletion
// shows it on sdk-go's own store). A real agent built on that sdk-go has
// the race; the simulated agent, which stands for a correct agent in the
// soak, must not: what Maestro sends still goes through sdk-go's
// HandleReceivedResource unchanged, so a live work Maestro really sends for
// a deleting one is still seen (and checked) as such.
type guardedStore struct {
	*store.AgentInformerWatcherStore
	mu sync.Mutex
	// kept is called when a write of the agent's own would have undone
	// the deletion of the work named, and was stored deleting.
	kept func(name string)
	// received, when set, is handed every work Maestro sent, first.
	received func(*workv1.ManifestWork)
}

func newGuardedStore(kept func(name string)) *guardedStore {
	return &guardedStore{AgentInformerWatcherStore: store.NewAgentInformerWatcherStore(), kept: kept}
}

// HandleReceivedResource stores what Maestro sent, as sdk-go does.
func (s *guardedStore) HandleReceivedResource(ctx context.Context, work *workv1.ManifestWork) error {
	if s.received != nil {
		s.received(work.DeepCopy())
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.AgentInformerWatcherStore.HandleReceivedResource(ctx, work)
}

func (s *guardedStore) Add(obj runtime.Object) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.AgentInformerWatcherStore.Add(obj)
}

// Update stores obj; a live copy of a stored deleting work (same uid) is
// stored deleting: the write's status and finalizers are kept (an applied
// report also puts the agent's finalizer on, without which no one answers
// the deletion when the sweep is off), and so is the deletion.
func (s *guardedStore) Update(obj runtime.Object) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if w, ok := obj.(*workv1.ManifestWork); ok && w.DeletionTimestamp == nil {
		cur, found, err := s.AgentInformerWatcherStore.Get(context.Background(), w.Namespace, w.Name)
		if err != nil {
			return err
		}
		if found && cur.UID == w.UID && cur.DeletionTimestamp != nil {
			s.kept(w.Name)
			w = w.DeepCopy()
			w.DeletionTimestamp, w.Generation = cur.DeletionTimestamp, cur.Generation
			obj = w
		}
	}
	return s.AgentInformerWatcherStore.Update(obj)
}

func (s *guardedStore) Delete(obj runtime.Object) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.AgentInformerWatcherStore.Delete(obj)
}

// forceUpdate stores obj unguarded: the fault injections (Options.
// LoseDeletes) write the undone deletion on purpose.
func (s *guardedStore) forceUpdate(obj runtime.Object) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.AgentInformerWatcherStore.Update(obj)
}
