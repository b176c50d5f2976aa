package broker

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// Run starts the workers and blocks until ctx is done and the workers
// stopped. Cancelling ctx abandons runs in progress (their messages are
// released); use Shutdown first for a graceful stop.
func (d *Dispatcher) Run(ctx context.Context) {
	stop := context.AfterFunc(ctx, func() {
		d.mu.Lock()
		d.closing = true
		d.cond.Broadcast()
		d.room.Broadcast()
		d.mu.Unlock()
	})
	defer stop()
	var wg sync.WaitGroup
	for i := 0; i < d.o.Workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d.worker(ctx)
		}()
	}
	wg.Wait()
	d.releasePending()
}

// Shutdown stops taking work: queued and newly arriving messages are
// released at once, workers finish the run they are in and stop. It waits
// for them until ctx is done. In-flight runs that outlast ctx are abandoned
// by cancelling Run's context (their messages are released then).
func (d *Dispatcher) Shutdown(ctx context.Context) error {
	d.mu.Lock()
	d.closing = true
	d.cond.Broadcast()
	d.room.Broadcast()
	d.mu.Unlock()
	d.releasePending()
	done := make(chan struct{})
	go func() {
		d.mu.Lock()
		for d.inflight > 0 {
			d.cond.Wait()
		}
		d.mu.Unlock()
		close(done)
	}()
	select {
	case <-done:
		d.releasePending()
		return nil
	case <-ctx.Done():
		d.releasePending()
		return ctx.Err()
	}
}

func (d *Dispatcher) worker(ctx context.Context) {
	for {
		key, batch, ok := d.next()
		if !ok {
			return
		}
		d.runBatch(ctx, batch)
		d.finish(key, batch)
	}
}

// next waits for a key with pending messages and takes them all.
func (d *Dispatcher) next() (string, []*item, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for len(d.ready) == 0 && !d.closing {
		d.cond.Wait()
	}
	if d.closing {
		return "", nil, false
	}
	key := d.ready[0]
	d.ready = d.ready[1:]
	ks := d.keys[key]
	batch := ks.pending
	ks.pending, ks.queued, ks.running = nil, false, true
	d.inflight++
	return key, batch, true
}

// finish ends the run of key's batch, whose messages are settled.
func (d *Dispatcher) finish(key string, batch []*item) {
	d.mu.Lock()
	defer d.mu.Unlock()
	msgs := make([]Message, len(batch))
	for i, it := range batch {
		msgs[i] = it.msg
	}
	d.settled(msgs)
	ks := d.keys[key]
	ks.running = false
	d.inflight--
	if len(ks.pending) == 0 {
		delete(d.keys, key)
	} else if !d.closing {
		d.markReady(key, ks)
	}
	d.cond.Broadcast()
}

// runBatch runs the newest event of a coalesced batch and settles every
// message of the batch by its result.
func (d *Dispatcher) runBatch(ctx context.Context, batch []*item) {
	newest := pickNewest(batch)
	if len(batch) > 1 {
		d.log.Info("coalesced events for one resource", "event_id", newest.ev.ID, "message_id", newest.msg.ID(),
			"deliveries", newest.msg.Deliveries(), "count", len(batch), "key", resourceKey(newest.ev))
	}
	ctx, span := d.startEvent(ctx, newest, batch)
	start := time.Now()
	evCtx, cancel := context.WithTimeoutCause(ctx, d.o.EventTimeout, errEventTimeout)
	res := d.o.Process(evCtx, newest.ev)
	timedOut := context.Cause(evCtx) == errEventTimeout
	cancel()
	took := time.Since(start)
	if timedOut {
		d.timedOut(newest, res)
	}
	settleCtx := context.WithoutCancel(ctx)
	outcome := d.settle(settleCtx, ctx.Err() != nil, newest, res)
	endEvent(span, res, outcome)
	if d.o.Hooks.Processed != nil {
		d.o.Hooks.Processed(res, took, outcome)
	}
	for _, it := range batch {
		if it != newest {
			d.settleSuperseded(settleCtx, it, outcome, generation(newest.ev) == generation(it.ev) || generationHeld(res))
		}
	}
}

// errEventTimeout is the cause of an event context whose deadline passed.
var errEventTimeout = errors.New("the event ran past its deadline (broker.subscriber.event_timeout)")

// timedOut reports an event that ran past EventTimeout. A run that failed
// then gets that failure first, so the redelivery's log line and a dead
// letter's reason name the deadline, not a bare "context deadline
// exceeded"; one that finished anyway keeps its result (its work is done).
func (d *Dispatcher) timedOut(it *item, res *adapter.Result) {
	d.log.Warn("event ran past its deadline and was cancelled", "event_id", it.ev.ID, "message_id", it.msg.ID(),
		"event_timeout", d.o.EventTimeout.String())
	if res == nil || res.Error == nil {
		return
	}
	pe := &adapter.PhaseError{Phase: "event", Message: fmt.Sprintf("did not finish within broker.subscriber.event_timeout (%v): cancelled", d.o.EventTimeout)}
	res.Errors = append([]*adapter.PhaseError{pe}, res.Errors...)
	res.Error = pe
}

// pickNewest is the item with the highest generation; the latest arrival
// among equals.
func pickNewest(batch []*item) *item {
	best := batch[0]
	for _, it := range batch[1:] {
		g, bg := generation(it.ev), generation(best.ev)
		if g > bg || (g == bg && it.seq > best.seq) {
			best = it
		}
	}
	return best
}

func generation(ev adapter.Event) int64 {
	switch g := ev.Data["generation"].(type) {
	case int64:
		return g
	case float64:
		return int64(g)
	}
	return 0
}

// settleSuperseded settles an older event of a batch: its work was done by
// the newest one (settled newest), unless that one was dead-lettered or
// released, or its generation was higher than this one's and only its own
// claim (believed false: its run did not find the API holding it), in
// which case the older one goes back to the broker to be run on its own.
func (d *Dispatcher) settleSuperseded(ctx context.Context, it *item, newest string, believed bool) {
	switch {
	case (newest == SettledAcked || newest == SettledRetried) && believed:
		d.ack(ctx, it.msg)
	default:
		d.release(ctx, it.msg)
	}
}
