package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bundle-adapter/bundle-adapter/internal/stacktest"
)

// driver publishes Sentinel reconcile events (stacktest.Publisher, one per
// publishing connection) and waits for their statuses.
type driver struct {
	api     *recordingAPI
	pubs    []*stacktest.Publisher
	topic   string
	runID   string
	timeout time.Duration
	next    atomic.Uint64 // event id counter
}

func newDriver(url, topic, runID string, n int, api *recordingAPI, timeout time.Duration) (*driver, error) {
	d := &driver{api: api, topic: topic, runID: runID, timeout: timeout}
	for range n {
		p, err := stacktest.DialPublisher(url)
		if err != nil {
			d.close()
			return nil, err
		}
		d.pubs = append(d.pubs, p)
	}
	return d, nil
}

func (d *driver) close() {
	for _, p := range d.pubs {
		_ = p.Close()
	}
}

// outcome is one event's fate.
type outcome struct {
	latency   time.Duration
	published time.Time
	st        status
	err       error
}

// send publishes one event for cluster i and waits for its status report.
// It returns errBusy, without publishing, while one of i is in flight.
func (d *driver) send(ctx context.Context, i int) outcome {
	id := clusterID(i)
	now := time.Now()
	f, err := d.api.expect(id, now)
	if err != nil {
		return outcome{err: err}
	}
	seq := d.next.Add(1)
	body := stacktest.Event{ID: fmt.Sprintf("%s-%d", d.runID, seq), Source: "bundle-adapter-bench",
		Time: now, ClusterID: id, Generation: 1}.JSON()
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	err = d.pubs[seq%uint64(len(d.pubs))].Publish(pctx, d.topic, "cluster.reconcile", "", body)
	cancel()
	if err != nil {
		d.api.forget(id, f)
		return outcome{err: fmt.Errorf("publish: %w", err)}
	}
	t := time.NewTimer(d.timeout)
	defer t.Stop()
	select {
	case st := <-f.done:
		return outcome{latency: st.at.Sub(f.published), published: f.published, st: st}
	case <-t.C:
		d.api.forget(id, f)
		return outcome{err: errLost}
	case <-ctx.Done():
		d.api.forget(id, f)
		return outcome{err: ctx.Err()}
	}
}

var errLost = errors.New("no status reported in time")

// tally collects the outcomes of a phase.
type tally struct {
	mu        sync.Mutex
	latencies []time.Duration
	sent      []time.Time    // when each of latencies' events was published
	ops       map[string]int // "bundle operation/state" -> count
	available int
	lost      int
	failed    int
	firstErr  error
	bad       int
	firstBad  string
	start     time.Time
	end       time.Time
}

func newTally() *tally { return &tally{ops: map[string]int{}, start: time.Now()} }

func (t *tally) add(o outcome) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case errors.Is(o.err, errLost):
		t.lost++
		return
	case o.err != nil:
		t.failed++
		if t.firstErr == nil {
			t.firstErr = o.err
		}
		return
	}
	t.latencies = append(t.latencies, o.latency)
	t.sent = append(t.sent, o.published)
	if end := o.st.at; end.After(t.end) {
		t.end = end
	}
	for name, op := range o.st.operations {
		t.ops[name+" "+op]++
	}
	if o.st.available == "True" {
		t.available++
	}
	if o.st.bad != "" {
		t.bad++
		if t.firstBad == "" {
			t.firstBad = o.st.bad
		}
	}
}

func (t *tally) reported() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.latencies)
}

// percentile of the reported latencies in milliseconds (0 when none).
func (t *tally) percentile(p float64) float64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.latencies) == 0 {
		return 0
	}
	s := slices.Clone(t.latencies)
	slices.Sort(s)
	return ms(rank(s, p))
}

// closedLoop keeps window events in flight, cycling over the clusters from
// first, until count events were sent or the deadline passed; a cluster
// whose previous event is still in flight is skipped.
func (d *driver) closedLoop(ctx context.Context, clusters, first, count, window int, deadline time.Time) *tally {
	t := newTally()
	var issued atomic.Int64
	var wg sync.WaitGroup
	for range window {
		wg.Go(func() {
			for ctx.Err() == nil && time.Now().Before(deadline) {
				n := int(issued.Add(1)) - 1
				if n >= count {
					return
				}
				o := d.send(ctx, (first+n)%clusters)
				if errors.Is(o.err, errBusy) {
					continue
				}
				t.add(o)
			}
		})
	}
	wg.Wait()
	if t.end.IsZero() {
		t.end = time.Now()
	}
	return t
}

// paced sends count events, one per cluster from first on, at rate events/s
// regardless of how fast they complete (an open loop, as Sentinel sends),
// stopping early at the deadline. At most maxInflight wait at once.
func (d *driver) paced(ctx context.Context, clusters, first, count int, rate float64, deadline time.Time, maxInflight int) *tally {
	t := newTally()
	sem := make(chan struct{}, maxInflight)
	var wg sync.WaitGroup
	interval := time.Duration(float64(time.Second) / rate)
	for n := 0; n < count && ctx.Err() == nil; n++ {
		at := t.start.Add(time.Duration(n) * interval)
		if at.After(deadline) {
			break
		}
		time.Sleep(time.Until(at))
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		wg.Go(func() {
			defer func() { <-sem }()
			o := d.send(ctx, (first+n)%clusters)
			if !errors.Is(o.err, errBusy) {
				t.add(o)
			}
		})
	}
	wg.Wait()
	if t.end.IsZero() {
		t.end = time.Now()
	}
	return t
}
