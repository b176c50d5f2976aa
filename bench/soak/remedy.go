package main

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// The operator's remedy for a deletion a real agent lost
// (docs/reliability.md, "Agent loses a deletion"): the agent removed the
// bundle's objects but never reported the bundle deleted, so Maestro holds
// it deleting for good and the adapter, rightly, creates nothing in its
// place. Restarting that agent makes it resync, which confirms the
// deletion. The soak applies the remedy as an operator paged by the
// DeletionStalled alert would, only sooner, and records each restart as
// the fault "agent-remedy" with the bundles it was for, so the report
// counts the deletions the real agents lost.
const (
	remedyEvery = 15 * time.Second
	// remedyAfter is how long a bundle must stay deleting with its
	// objects gone from the kube-apiserver before its agent is
	// restarted: a confirmed deletion comes within seconds of that.
	remedyAfter = 45 * time.Second
	// remedyMax bounds the restarts of one agent over a run.
	remedyMax = 5
)

// bundleKinds map a bundle's name suffix to the object of it that the
// kube-apiserver holds (the example's bundles).
var bundleKinds = map[string]string{"-setup": "Namespace", "-validation": "Job"}

// remedy watches the real agents' deleting bundles.
type remedy struct {
	h        *harness
	f        *faulter
	gone     map[string]time.Time // bundle id: since when deleting with its objects gone
	restarts map[string]int       // consumer: remedies so far
}

// run checks every remedyEvery until ctx ends.
func (m *remedy) run(ctx context.Context) {
	every(ctx, remedyEvery, func() {
		for _, c := range m.h.real {
			m.check(ctx, c)
		}
	})
}

// every calls fn every period until ctx ends.
func every(ctx context.Context, period time.Duration, fn func()) {
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			fn()
		}
	}
}

// check restarts consumer's agent when it holds a bundle deleting for
// remedyAfter with its objects gone. A Maestro that does not answer (a
// fault) skips the round.
func (m *remedy) check(ctx context.Context, consumer string) {
	search := fmt.Sprintf("source='%s' and consumer_name='%s'", m.h.sourceID, consumer)
	bs, err := fetchBundles(ctx, m.h.o.maestroREST, search)
	if err != nil {
		return
	}
	var lost []string
	deleting := map[string]bool{}
	for _, b := range bs {
		if !b.Deleting {
			continue
		}
		deleting[b.ID] = true
		if m.objectsOf(b.Name, b.Generation) {
			delete(m.gone, b.ID)
			continue
		}
		if _, ok := m.gone[b.ID]; !ok {
			m.gone[b.ID] = time.Now()
		}
		if time.Since(m.gone[b.ID]) >= remedyAfter {
			lost = append(lost, b.Name)
		}
	}
	for id := range m.gone {
		if !deleting[id] {
			delete(m.gone, id) // confirmed
		}
	}
	if len(lost) == 0 || m.restarts[consumer] >= remedyMax {
		return
	}
	m.restarts[consumer]++
	at := time.Now()
	err = realAgents{m.h.o.hackDir}.restart(consumer)
	m.f.record("agent-remedy", at, map[string]any{"consumer": consumer, "bundles": lost}, err)
	clear(m.gone)
}

// objectsOf reports whether the kube-apiserver still holds the object of
// the bundle named name (at generation, for a Job).
func (m *remedy) objectsOf(name, generation string) bool {
	for suffix, kind := range bundleKinds {
		if cluster, ok := strings.CutSuffix(name, suffix); ok {
			if kind != "Job" {
				generation = ""
			}
			return m.h.kube.holds(cluster, kind, generation)
		}
	}
	return true // not a bundle of the example: never judged lost
}
