package maestroclient_test

import (
	"testing"
	"time"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/agentsim"
)

// TestLostDeletionHealsOnRedelete reproduces, with the simulated agent's
// fault, the deletion a real agent loses (sdk-go's agent store race), and
// checks what recovers it on the real Maestro server: a plain Delete of a
// deleting bundle sends nothing (Client.Delete leaves it alone), a
// Redelete makes Maestro deliver the deletion again, and the agent that
// lost n requests confirms the (n+1)th. A Redelete keeps the first
// deletionTimestamp.
func TestLostDeletionHealsOnRedelete(t *testing.T) {
	s := requireServer(t)
	c := newClient(t, s, nil)
	tests := []struct {
		name string
		lose int // deletion requests the agent loses
	}{
		{"nothing lost: gone after the delete", 0},
		{"one lost: gone after one redelete", 1},
		{"two lost: gone after two redeletes", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			consumer := register(t, s, "lost")
			startAgent(t, s, consumer, func(o *agentsim.Options) { o.LoseDeletes = tt.lose })
			name := unique("b")
			if _, err := c.Create(ctx, consumer, bundle(name, "v1"), adapter.Unread); err != nil {
				t.Fatalf("Create: %v", err)
			}
			waitApplied(t, c, consumer, name, 1)
			if err := c.Delete(ctx, consumer, name); err != nil {
				t.Fatalf("Delete: %v", err)
			}
			first, err := c.Get(ctx, consumer, name)
			if err != nil && tt.lose > 0 {
				t.Fatalf("Get after Delete: %v", err)
			}
			for i := range tt.lose {
				// An agent that acts confirms within milliseconds.
				stillPending(t, c, consumer, name, 2*time.Second)
				if err := c.Delete(ctx, consumer, name); err != nil {
					t.Fatalf("Delete while deleting: %v", err)
				}
				stillPending(t, c, consumer, name, time.Second)
				if err := c.Redelete(ctx, consumer, name); err != nil {
					t.Fatalf("Redelete %d: %v", i+1, err)
				}
				// Seconds after the first delete: a reset deletionTimestamp
				// would show, and would restart the escalation's count.
				if again, err := c.Get(ctx, consumer, name); err == nil &&
					!again.DeletionTimestamp.Equal(first.DeletionTimestamp) {
					t.Errorf("deletionTimestamp after Redelete %d = %v, want the first delete's %v",
						i+1, again.DeletionTimestamp, first.DeletionTimestamp)
				}
			}
			waitNotFound(t, c, consumer, name)
		})
	}
}

// TestLostDeletionHealsOnAgentRestart: an agent that reconnects asks
// Maestro to resync, and Maestro answers with every bundle being deleted
// whatever its version (sdk-go server/grpc broker.go,
// respondResyncSpecRequest): a restarted agent confirms a deletion its
// predecessor lost, with no delete sent again.
func TestLostDeletionHealsOnAgentRestart(t *testing.T) {
	s := requireServer(t)
	ctx := t.Context()
	c := newClient(t, s, nil)
	consumer := register(t, s, "restart")
	lossy := startAgent(t, s, consumer, func(o *agentsim.Options) { o.LoseDeletes = 1 })
	name := unique("b")
	if _, err := c.Create(ctx, consumer, bundle(name, "v1"), adapter.Unread); err != nil {
		t.Fatalf("Create: %v", err)
	}
	waitApplied(t, c, consumer, name, 1)
	if err := c.Delete(ctx, consumer, name); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	stillPending(t, c, consumer, name, 2*time.Second)
	lossy.Stop()
	startAgent(t, s, consumer, nil)
	waitNotFound(t, c, consumer, name)
}

// TestLostDeletionWithoutFinalizerHealsOnlyOnAgentRestart reproduces, with
// the simulated agent run as Maestro's real agent answers deletions
// (NoDeletionSweep), the state TestAgentStoreRedeleteKeepsAMissingFinalizer
// shows sdk-go's agent store keeps: a work deleting without the agent's
// finalizer. Re-sent deletes reach the agent's store and change nothing
// there, so the bundle stays deleting in Maestro; a restarted agent, whose
// empty store takes the resync's deletion with its finalizer, confirms it.
// The agent without the fault confirms at once: the hold is the fault's.
func TestLostDeletionWithoutFinalizerHealsOnlyOnAgentRestart(t *testing.T) {
	s := requireServer(t)
	c := newClient(t, s, nil)
	const redeletes = 3
	tests := []struct {
		name string
		lose int // deletion requests that lose the finalizer
	}{
		{"nothing lost: gone after the delete", 0},
		{"finalizer lost: deleting after 3 redeletes, gone after a restart", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			consumer := register(t, s, "finalizer")
			lossy := startAgent(t, s, consumer, func(o *agentsim.Options) {
				o.NoDeletionSweep, o.LoseFinalizers = true, tt.lose
			})
			name := unique("b")
			if _, err := c.Create(ctx, consumer, bundle(name, "v1"), adapter.Unread); err != nil {
				t.Fatalf("Create: %v", err)
			}
			waitApplied(t, c, consumer, name, 1)
			if err := c.Delete(ctx, consumer, name); err != nil {
				t.Fatalf("Delete: %v", err)
			}
			if tt.lose == 0 {
				waitNotFound(t, c, consumer, name)
				return
			}
			// An agent that acts confirms within milliseconds.
			stillPending(t, c, consumer, name, 2*time.Second)
			for i := range redeletes {
				if err := c.Redelete(ctx, consumer, name); err != nil {
					t.Fatalf("Redelete %d: %v", i+1, err)
				}
				stillPending(t, c, consumer, name, 2*time.Second)
			}
			lossy.Stop()
			startAgent(t, s, consumer, func(o *agentsim.Options) { o.NoDeletionSweep = true })
			waitNotFound(t, c, consumer, name)
		})
	}
}
