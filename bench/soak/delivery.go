package main

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/bundle-adapter/bundle-adapter/bench/soak/check"
	"github.com/bundle-adapter/bundle-adapter/internal/stacktest"
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
// deliveryAfter since Maestro dispatched it, and records each restart as
// the fault "delivery-remedy" naming the bundles, so the report says how
// many deliveries Maestro lost.
//
// Dispatched, not written: Maestro hands spec events to the agents from
// one queue worked by one goroutine (stacktest.MaestroSpecQueue), about 60
// to 80 events a second on this 2-core machine while the soak runs, so the
// first round's 4,000 creates wait up to a minute in it, and under a
// concurrent build longer. Counting from the write, the harness took that
// queue for lost deliveries and restarted nearly every agent in the first
// two minutes (2026-12-07: 280, 215, 1,051 bundles), whose resyncs and
// status floods put the run further behind. A spec's minute now starts
// once Maestro has processed every event queued when the spec was first
// seen missing; an event Maestro never queued (the listener's gap) is
// past as soon as the queue drains.
const (
	deliveryEvery = 15 * time.Second
	// deliveryAfter is how long after Maestro dispatched a spec its agent
	// may lack it: a delivery takes well under a second; an agent
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
	mark     map[string]float64   // resource id: Maestro's spec queue's adds when the agent was first seen lacking it
	behind   map[string]time.Time // resource id: since when the agent lacks a spec Maestro dispatched
	restarts map[string]int       // consumer: remedies so far
	start    float64              // Maestro's process start the marks count in
	peak     stacktest.MaestroSpecQueue
	peakAt   time.Time
}

func newDeliveries(h *harness) *deliveries {
	return &deliveries{h: h, got: map[string]received{}, mark: map[string]float64{}, behind: map[string]time.Time{}, restarts: map[string]int{}}
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

// check lists the source's bundles and reads Maestro's spec queue; a
// Maestro that does not answer either (a fault) skips the round.
func (d *deliveries) check(ctx context.Context, f *faulter) {
	bs, err := fetchBundles(ctx, d.h.o.maestroREST, fmt.Sprintf("source='%s'", d.h.sourceID))
	if err != nil {
		return
	}
	q, err := maestroSpecQueue(d.h.o.maestroMetrics)
	if err != nil {
		return
	}
	for consumer, names := range d.lost(bs, d.h.simulated(), time.Now(), q) {
		if d.restarts[consumer] >= deliveryMax {
			continue
		}
		d.restarts[consumer]++
		at := time.Now()
		err := d.h.agents.restart(consumer)
		f.record("delivery-remedy", at, map[string]any{"consumer": consumer, "bundles": names}, err)
	}
}

// maestroSpecQueue scrapes Maestro's metrics for its spec queue.
func maestroSpecQueue(url string) (stacktest.MaestroSpecQueue, error) {
	m, err := stacktest.Scrape(url)
	if err != nil {
		return stacktest.MaestroSpecQueue{}, err
	}
	q, ok := m.MaestroSpecQueue()
	if !ok {
		return q, fmt.Errorf("%s: no event-controller queue", url)
	}
	return q, nil
}

// lost is, per simulated consumer, the bundles whose spec Maestro has
// dispatched deliveryAfter ago without the agent receiving it, or without
// the Applied status the agent reports at once for every spec it receives
// (seen once: 12 bundles received 68 s late whose status Maestro never
// recorded), and the bundles Maestro has held deleting for deliveryAfter
// since dispatching: a simulated agent deletes at once, so that deletion
// was not delivered, or was received and never confirmed (the sdk-go store
// race agentsim keeps with its sweep off, as the soak runs it:
// docs/reliability.md; seen on agents the remedy had just restarted, whose
// resync sent the deleting work). A bundle first seen lacking is marked
// with q.Added; it counts as dispatched from the first look at which
// q.Done has reached its mark (the queue is worked in order, one event at
// a time). A restarted Maestro (q.Start changed) starts every mark over.
// It forgets what Maestro no longer holds, and the consumers it returns
// start over.
func (d *deliveries) lost(bs []check.Bundle, simulated []string, now time.Time, q stacktest.MaestroSpecQueue) map[string][]string {
	d.mu.Lock()
	defer d.mu.Unlock()
	if q.Start != d.start {
		d.start = q.Start
		clear(d.mark)
		clear(d.behind)
	}
	if q.Depth > d.peak.Depth {
		d.peak, d.peakAt = q, now
	}
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
			delete(d.mark, b.ID)
			delete(d.behind, b.ID)
			continue
		}
		mark, marked := d.mark[b.ID]
		if !marked {
			mark = q.Added
			d.mark[b.ID] = mark
		}
		since, dispatched := d.behind[b.ID]
		if !dispatched {
			if q.Done >= mark {
				d.behind[b.ID] = now
			}
			continue
		}
		if now.Sub(since) >= deliveryAfter {
			out[b.Consumer] = append(out[b.Consumer], b.Name)
		}
	}
	for id := range d.mark {
		if !held[id] {
			delete(d.mark, id)
			delete(d.behind, id)
		}
	}
	for consumer := range out {
		slices.Sort(out[consumer])
		for _, b := range bs {
			if b.Consumer == consumer {
				delete(d.mark, b.ID)
				delete(d.behind, b.ID)
			}
		}
	}
	return out
}

// queuePeak is the deepest Maestro's spec queue was seen, and when.
func (d *deliveries) queuePeak() (int, time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return int(d.peak.Depth), d.peakAt
}
