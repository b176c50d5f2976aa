package main

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/bundle-adapter/bundle-adapter/bench/soak/check"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/agentsim"
)

// Maestro delivering nothing of a spec it holds, or recording no status
// for it (docs/reliability.md, "A
// PostgreSQL restart: spec changes Maestro never delivers"): Maestro hands
// a spec change to its agent only when PostgreSQL notifies it of the
// change's event, and its listener misses every notification while it
// reconnects after a PostgreSQL restart; such an event waits for Maestro's
// own resync of events, every 10 hours, or for the agent's resync when it
// connects again. The adapter wrote what it should: Maestro holds it. The
// soak applies the operator's remedy, restarting the consumer's agent,
// when a simulated agent has not received what Maestro has held for
// deliveryAfter, and records each restart as the fault "delivery-remedy"
// naming the bundles, so the report says how many deliveries Maestro lost.
const (
	deliveryEvery = 15 * time.Second
	// deliveryAfter is how long Maestro must hold a spec its agent has
	// not received: a delivery takes well under a second; an agent
	// reconnecting after a Maestro restart takes up to about two minutes
	// (sdk-go's backoff), and restarting it is harmless.
	deliveryAfter = 60 * time.Second
	// deliveryMax bounds the remedies of one consumer over a run.
	deliveryMax = 5
)

// received is what a simulated agent last received of one bundle.
type received struct {
	fingerprint string
	deleting    bool
}

// deliveries compares what Maestro holds for the simulated agents with
// what each received.
type deliveries struct {
	h *harness

	mu       sync.Mutex
	got      map[string]received  // Maestro's resource id: the agent's last spec
	behind   map[string]time.Time // resource id: since when the agent lacks Maestro's spec
	restarts map[string]int       // consumer: remedies so far
}

func newDeliveries(h *harness) *deliveries {
	return &deliveries{h: h, got: map[string]received{}, behind: map[string]time.Time{}, restarts: map[string]int{}}
}

// saw records a spec event a simulated agent received.
func (d *deliveries) saw(e agentsim.SpecEvent) {
	w := e.Work
	d.mu.Lock()
	defer d.mu.Unlock()
	d.got[w.Name] = received{fingerprint: w.Annotations[fingerprintAnnotation],
		deleting: e.Kind == "delete" || w.DeletionTimestamp != nil}
}

// run checks every deliveryEvery until ctx ends, recording remedies with f.
func (d *deliveries) run(ctx context.Context, f *faulter) {
	every(ctx, deliveryEvery, func() { d.check(ctx, f) })
}

// check lists the source's bundles; a Maestro that does not answer (a
// fault) skips the round.
func (d *deliveries) check(ctx context.Context, f *faulter) {
	bs, err := fetchBundles(ctx, d.h.o.maestroREST, fmt.Sprintf("source='%s'", d.h.sourceID))
	if err != nil {
		return
	}
	for consumer, names := range d.lost(bs, d.h.simulated(), time.Now()) {
		if d.restarts[consumer] >= deliveryMax {
			continue
		}
		d.restarts[consumer]++
		at := time.Now()
		err := d.h.agents.restart(consumer)
		f.record("delivery-remedy", at, map[string]any{"consumer": consumer, "bundles": names}, err)
	}
}

// lost is, per simulated consumer, the bundles whose spec Maestro has held
// for deliveryAfter without the agent receiving it, or without the Applied
// status the agent reports at once for every spec it receives (seen once:
// 12 bundles received 68 s late whose status Maestro never recorded), and
// the bundles Maestro has held deleting for deliveryAfter: a simulated
// agent deletes at once, so that deletion was not delivered, or was
// received and never confirmed (the sdk-go store race agentsim keeps with
// its sweep off, as the soak runs it: docs/reliability.md; seen on agents
// the remedy had just restarted, whose resync sent the deleting work). It
// forgets what Maestro no longer holds, and the consumers it returns start
// over.
func (d *deliveries) lost(bs []check.Bundle, simulated []string, now time.Time) map[string][]string {
	d.mu.Lock()
	defer d.mu.Unlock()
	held := map[string]bool{}
	out := map[string][]string{}
	for _, b := range bs {
		if !slices.Contains(simulated, b.Consumer) {
			continue
		}
		held[b.ID] = true
		r, ok := d.got[b.ID]
		received := ok && r.fingerprint == b.Fingerprint && (r.deleting || !b.Deleting)
		if received && !b.Deleting && b.Applied == "True" {
			delete(d.behind, b.ID)
			continue
		}
		since, seen := d.behind[b.ID]
		if !seen {
			d.behind[b.ID] = now
			continue
		}
		if now.Sub(since) >= deliveryAfter {
			out[b.Consumer] = append(out[b.Consumer], b.Name)
		}
	}
	for id := range d.behind {
		if !held[id] {
			delete(d.behind, id)
		}
	}
	for consumer := range out {
		slices.Sort(out[consumer])
		for _, b := range bs {
			if b.Consumer == consumer {
				delete(d.behind, b.ID)
			}
		}
	}
	return out
}
