package maestroclient_test

import (
	"errors"
	"testing"
	"time"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/agentsim"
)

// TestDeleteModes checks what Get shows after Delete for each way the agent
// answers: pending (with deletionTimestamp) until the agent confirms, then 404.
func TestDeleteModes(t *testing.T) {
	s := requireServer(t)
	c := newClient(t, s, nil)
	tests := []struct {
		name       string
		mode       agentsim.DeleteMode
		delay      time.Duration
		noAgent    bool
		pendingFor time.Duration // Get must still return the bundle this long
		gone       bool          // then Get must answer 404
	}{
		{name: "at once", mode: agentsim.DeleteAtOnce, gone: true},
		{name: "after delay", mode: agentsim.DeleteAfterDelay, delay: 2 * time.Second,
			pendingFor: time.Second, gone: true},
		{name: "never", mode: agentsim.DeleteOnRelease, pendingFor: 2 * time.Second},
		{name: "no agent", noAgent: true, pendingFor: 2 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			consumer := register(t, s, "del")
			if !tt.noAgent {
				startAgent(t, s, consumer, func(o *agentsim.Options) { o.Delete, o.DeleteDelay = tt.mode, tt.delay })
			}
			name := unique("b")
			if _, err := c.Create(ctx, consumer, bundle(name, "v1"), adapter.Unread); err != nil {
				t.Fatalf("Create: %v", err)
			}
			if !tt.noAgent {
				waitApplied(t, c, consumer, name, 1)
			}
			if err := c.Delete(ctx, consumer, name); err != nil {
				t.Fatalf("Delete: %v", err)
			}
			stillPending(t, c, consumer, name, tt.pendingFor)
			if tt.gone {
				waitNotFound(t, c, consumer, name)
			}
		})
	}
}

// stillPending checks that Get keeps returning the bundle, with a
// deletionTimestamp, for d.
func stillPending(t *testing.T, c adapter.Maestro, consumer, name string, d time.Duration) {
	t.Helper()
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		w, err := c.Get(t.Context(), consumer, name)
		if errors.Is(err, adapter.ErrNotFound) {
			t.Fatalf("bundle gone while the agent holds its deletion")
		}
		if err != nil {
			t.Fatalf("Get: %v", err)
		}
		if w.DeletionTimestamp == nil {
			t.Fatalf("pending bundle without deletionTimestamp")
		}
	}
}
