package main

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/bench/soak/check"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/agentsim"
)

// fingerprintAnnotation and generationAnnotation (with clusterLabel, which
// the bundles carry too) are what the agents' history keeps of each work.
const (
	fingerprintAnnotation = "bundle-adapter.io/fingerprint"
	generationAnnotation  = "hyperfleet.io/generation"
)

// agents are the simulated agents, one per consumer, recording every spec
// change they receive (agents.jsonl).
type agents struct {
	// life is the run's context: every agent, a restarted one included,
	// lives until it ends (or stop). A fault's context is not passed in:
	// it ends when the faults stop, before the drain, and an agent
	// started on it would leave its consumer unsubscribed for the drain
	// (the first soaks' "stuck deleting" bundles were exactly that).
	life   context.Context
	broker string
	rec    *recorder
	log    *slog.Logger

	// saw, when set, is also told of every spec event an agent receives
	// (the delivery watch: delivery.go).
	saw func(agentsim.SpecEvent)

	mu  sync.Mutex
	run map[string]*agentsim.Agent
}

func (a *agents) start(consumer string) error {
	ag, err := agentsim.Start(a.life, agentsim.Options{BrokerAddress: a.broker, Consumer: consumer,
		Delete: agentsim.DeleteAtOnce, NoDeletionSweep: true, Logger: a.log,
		OnSpec: func(e agentsim.SpecEvent) {
			a.rec.add(agentEvent(consumer, e))
			if a.saw != nil {
				a.saw(e)
			}
		}})
	if err != nil {
		return fmt.Errorf("agent for %s: %w", consumer, err)
	}
	a.mu.Lock()
	a.run[consumer] = ag
	a.mu.Unlock()
	return nil
}

// restart stops the agent of consumer and starts a new one, which lives
// as long as the run.
func (a *agents) restart(consumer string) error {
	a.mu.Lock()
	ag := a.run[consumer]
	a.mu.Unlock()
	if ag != nil {
		ag.Stop()
	}
	time.Sleep(time.Second)
	return a.start(consumer)
}

func (a *agents) stop() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, ag := range a.run {
		ag.Stop()
	}
}

func agentEvent(consumer string, e agentsim.SpecEvent) check.AgentEvent {
	w := e.Work
	return check.AgentEvent{Consumer: consumer, Name: w.Name, UID: string(w.UID), Kind: e.Kind,
		Fingerprint: w.Annotations[fingerprintAnnotation], Generation: workGeneration(w),
		Deleting: w.DeletionTimestamp != nil, Cluster: w.Labels[clusterLabel], OldPresent: e.OldPresent,
		Redelivered: e.Redelivered, OldRedelivered: e.OldRedelivered, At: time.Now()}
}

// workGeneration is the hyperfleet.io/generation annotation of the work's
// first manifest or of the work itself.
func workGeneration(w *workv1.ManifestWork) string {
	return w.Annotations[generationAnnotation]
}
