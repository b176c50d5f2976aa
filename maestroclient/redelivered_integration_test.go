package maestroclient_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/agentsim"
)

// TestDeletionDeliveredAfterConfirmation reproduces on the real server
// where issue 48's "deleting work received again after its confirmation"
// comes from, deterministically: Maestro makes one delete event per delete
// request (MarkAsDeleting), each read from its database when sent; a second
// request (a Redelete, or two replicas deleting at once) sent while the
// bundle is still there is delivered even if it reaches the agent after
// the agent confirmed the first (here its arrival is held in the agent's
// receive hook, standing for a busy agent or stream, until the agent has
// confirmed and Maestro answers 404). sdk-go's agent store then adds a
// deleting work it no longer holds (agentsim's Redelivered). That copy has
// no finalizer: with the agent as Maestro ships it (no sweep) no one
// answers it, and the bundle created again under its name (same uid)
// replaces it, is applied, and stays.
func TestDeletionDeliveredAfterConfirmation(t *testing.T) {
	s := requireServer(t)
	c := newClient(t, s, nil)
	ctx := t.Context()
	consumer := register(t, s, "redeliver")
	g := &secondDeletion{arrived: make(chan struct{}), release: make(chan struct{})}
	t.Cleanup(g.open)
	agent := startAgent(t, s, consumer, func(o *agentsim.Options) {
		o.Delete, o.NoDeletionSweep, o.OnReceive, o.OnSpec = agentsim.DeleteOnRelease, true, g.receive, g.spec
	})
	name := unique("b")
	w, err := c.Create(ctx, consumer, bundle(name, "v1"), adapter.Unread)
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	waitApplied(t, c, consumer, name, 1)
	g.setUID(string(w.UID))

	if err := c.Delete(ctx, consumer, name); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	eventually(t, 10*time.Second, "first deletion received", func() error { return g.deletions(1) })
	if err := c.Redelete(ctx, consumer, name); err != nil {
		t.Fatalf("Redelete: %v", err)
	}
	select {
	case <-g.arrived: // Maestro sent the second deletion while the bundle was there
	case <-time.After(10 * time.Second):
		t.Fatal("the second delete request was not delivered")
	}
	go agent.Release(ctx, string(w.UID)) // the agent confirms the first
	waitNotFound(t, c, consumer, name)
	eventually(t, 10*time.Second, "the agent dropped the work", func() error { return g.seen(func(e agentsim.SpecEvent) bool { return e.Kind == "delete" }) })
	g.open() // the second deletion reaches the agent now
	eventually(t, 10*time.Second, "the deletion added again", func() error { return g.seen(func(e agentsim.SpecEvent) bool { return e.Redelivered }) })

	again, err := c.Create(ctx, consumer, bundle(name, "v2"), adapter.ReadAbsent)
	if err != nil {
		t.Fatalf("Create after 404: %v", err)
	}
	if again.UID != w.UID {
		t.Fatalf("created again with uid %s, want the name's %s", again.UID, w.UID)
	}
	waitApplied(t, c, consumer, name, 1)
	if err := g.seen(func(e agentsim.SpecEvent) bool { return e.OldRedelivered && !e.OldPresent }); err != nil {
		t.Errorf("the new work did not replace the redelivered copy: %v", err)
	}
	time.Sleep(3 * time.Second) // longer than sdk-go's 2 s sweep, were it on
	if _, err := c.Get(ctx, consumer, name); err != nil {
		t.Errorf("the bundle created again is gone: %v (a Deleted status for the copy deletes whatever bundle holds the uid)", err)
	}
}

// secondDeletion holds the second deleting delivery of one uid in the
// agent's receive hook until open, and records what the informer saw.
type secondDeletion struct {
	mu       sync.Mutex
	uid      string
	received int
	events   []agentsim.SpecEvent
	arrived  chan struct{}
	release  chan struct{}
	once     sync.Once
}

func (g *secondDeletion) setUID(uid string) { g.mu.Lock(); g.uid = uid; g.mu.Unlock() }
func (g *secondDeletion) open()             { g.once.Do(func() { close(g.release) }) }

func (g *secondDeletion) receive(w *workv1.ManifestWork) {
	g.mu.Lock()
	if w.DeletionTimestamp == nil || string(w.UID) != g.uid {
		g.mu.Unlock()
		return
	}
	g.received++
	n := g.received
	g.mu.Unlock()
	if n == 2 {
		close(g.arrived)
		<-g.release
	}
}

func (g *secondDeletion) spec(e agentsim.SpecEvent) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if string(e.Work.UID) == g.uid {
		g.events = append(g.events, e)
	}
}

func (g *secondDeletion) deletions(n int) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.received < n {
		return fmt.Errorf("%d deleting deliveries received", g.received)
	}
	return nil
}

func (g *secondDeletion) seen(match func(agentsim.SpecEvent) bool) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, e := range g.events {
		if match(e) {
			return nil
		}
	}
	kinds := make([]string, len(g.events))
	for i, e := range g.events {
		kinds[i] = e.Kind
	}
	return fmt.Errorf("informer saw %v", kinds)
}
