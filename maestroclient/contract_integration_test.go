package maestroclient_test

import (
	"context"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/agentsim"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/contract"
)

// realHarness runs the shared contract scenarios against the real Maestro
// server, with a simulated agent that holds every deletion until the
// scenario confirms it. The same scenarios run against the in-memory
// Maestro in maestroclient/memmaestro, so the fake is checked against the server.
type realHarness struct {
	t        *testing.T
	client   adapter.Maestro
	agent    *agentsim.Agent
	consumer string
}

func (h *realHarness) Maestro() adapter.Maestro { return h.client }
func (h *realHarness) Registered() string       { return h.consumer }
func (h *realHarness) Unregistered() string     { return unique("unregistered") }
func (h *realHarness) Unique(prefix string) string {
	return unique(prefix)
}
func (h *realHarness) Timeout() time.Duration { return 30 * time.Second }

// Held reports whether the simulated agent has reported w applied: it puts
// its finalizer on the work in the same step, and only then holds a
// deletion; a deletion reaching its store earlier is confirmed by sdk-go's
// sweep within 2 s (CI saw UpdateWhileDeleting's work gone before its
// deletionTimestamp could be read).
func (h *realHarness) Held(w *workv1.ManifestWork) bool {
	return meta.IsStatusConditionTrue(w.Status.Conditions, workv1.WorkApplied)
}

// Confirm releases the agent's hold on the work's deletion.
func (h *realHarness) Confirm(t *testing.T, consumer, name string) {
	t.Helper()
	w, err := h.client.Get(context.Background(), consumer, name)
	if err != nil {
		t.Fatalf("confirm %s/%s: %v", consumer, name, err)
	}
	h.agent.Release(context.Background(), string(w.UID))
}

func TestContractAgainstRealMaestro(t *testing.T) {
	s := requireServer(t)
	consumer := register(t, s, "contract")
	agent := startAgent(t, s, consumer, func(o *agentsim.Options) { o.Delete = agentsim.DeleteOnRelease })
	contract.Run(t, &realHarness{t: t, client: newClient(t, s, nil), agent: agent, consumer: consumer})
}
