package maestroclient_test

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/agentsim"
)

// TestNoWorkReturnsWhileDeleting is issue 48's scene on the real server:
// bundles deleted while their agent is still reporting them applied, the
// deletions held by the agent, Maestro restarted meanwhile (the agent
// reconnects and resyncs, the source clients reconnect), and the deletes
// sent again through the reconnected source clients. What reached the
// agent (OnReceive) and what its informer saw (OnSpec) are recorded: no
// live work may reach the agent for a bundle it holds deleting (a resend
// by Maestro or by the source), and no work may turn live again in its
// informer (issue 48's "same work arriving as new"). Disruptive: set
// MAESTRO_TEST_RESTART=1.
func TestNoWorkReturnsWhileDeleting(t *testing.T) {
	s := requireServer(t)
	if os.Getenv(envRestart) != "1" {
		t.Skipf("disruptive: set %s=1 to stop and restart the server through hack/maestro.sh", envRestart)
	}
	p := restartPool(t, s)
	consumer := register(t, s, "undelete")
	rec := &deletionRecorder{deleting: map[string]bool{}, deletes: map[string]int{}}
	agent := startAgent(t, s, consumer, func(o *agentsim.Options) {
		o.Delete, o.Workers, o.OnSpec, o.OnReceive = agentsim.DeleteOnRelease, 4, rec.spec, rec.receive
	})
	const n = 60
	uids := map[string]string{} // by name
	for i := range n {
		name := fmt.Sprintf("u%02d-%s", i, unique("b"))
		w, err := p.Create(t.Context(), consumer, bundle(name, "v1"), adapter.ReadAbsent)
		if err != nil {
			t.Fatalf("create %s: %v", name, err)
		}
		uids[name] = string(w.UID)
	}
	for name := range uids { // while the agent reports them applied
		if err := p.Delete(t.Context(), consumer, name); err != nil {
			t.Fatalf("delete %s: %v", name, err)
		}
	}
	rec.waitDeleting(t, uids, 1, time.Minute)

	maestroScript(t, "stop")
	t.Cleanup(func() { maestroScript(t, "start") }) // no-op when running
	maestroScript(t, "start")
	held := map[string]string{}   // the deletions the agent still holds
	for name, uid := range uids { // the source clients reconnect as they send
		eventually(t, time.Minute, "redelete "+name, func() error {
			err := p.Redelete(t.Context(), consumer, name)
			switch {
			case errors.Is(err, adapter.ErrNotFound): // confirmed by sdk-go's sweep (deleting without finalizer)
				return nil
			case err == nil:
				held[name] = uid
			}
			return err
		})
	}
	t.Logf("%d of %d deletions held across the restart", len(held), n)
	rec.waitDeleting(t, held, 2, time.Minute) // the resync's or the redelete's
	time.Sleep(2 * time.Second)               // anything that would follow

	rec.mu.Lock()
	t.Logf("delete events received per bundle: %v", rec.deletes)
	for _, e := range rec.liveWhileDeleting {
		t.Errorf("Maestro sent a live work for a bundle the agent holds deleting: %s", e)
	}
	for _, e := range rec.returned {
		t.Errorf("the agent's informer saw a deleting work live again: %s", e)
	}
	rec.mu.Unlock()
	for name, uid := range held {
		agent.Release(t.Context(), uid)
		eventually(t, time.Minute, "deleted "+name, func() error {
			if _, err := p.Get(t.Context(), consumer, name); err == nil {
				return fmt.Errorf("still there")
			}
			return nil
		})
	}
}

// deletionRecorder records, by uid, what reached an agent and what its
// informer saw.
type deletionRecorder struct {
	mu                sync.Mutex
	deleting          map[string]bool // a delete reached the agent
	deletes           map[string]int  // delete events received
	liveWhileDeleting []string
	returned          []string
}

func (r *deletionRecorder) receive(w *workv1.ManifestWork) {
	r.mu.Lock()
	defer r.mu.Unlock()
	uid := string(w.UID)
	if w.DeletionTimestamp != nil {
		r.deleting[uid] = true
		r.deletes[uid]++
		return
	}
	if r.deleting[uid] {
		r.liveWhileDeleting = append(r.liveWhileDeleting, fmt.Sprintf("%s generation %d at %s",
			uid, w.Generation, time.Now().Format(time.StampMilli)))
	}
}

func (r *deletionRecorder) spec(e agentsim.SpecEvent) {
	if !e.OldPresent {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.returned = append(r.returned, fmt.Sprintf("%s generation %d at %s", e.Work.UID, e.Work.Generation,
		time.Now().Format(time.StampMilli)))
}

// waitDeleting waits until every bundle's agent received at least min
// delete events.
func (r *deletionRecorder) waitDeleting(t *testing.T, uids map[string]string, min int, timeout time.Duration) {
	t.Helper()
	eventually(t, timeout, fmt.Sprintf("%d delete events for every bundle", min), func() error {
		r.mu.Lock()
		defer r.mu.Unlock()
		for name, uid := range uids {
			if r.deletes[uid] < min {
				return fmt.Errorf("%s: %d", name, r.deletes[uid])
			}
		}
		return nil
	})
}
