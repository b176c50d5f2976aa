package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"time"

	"github.com/bundle-adapter/bundle-adapter/bench/soak/check"
	"github.com/bundle-adapter/bundle-adapter/internal/stacktest"
)

// publisher sends every cluster's reconcile event once per period, spread
// evenly over the period, as Sentinel resends each cluster: persistent
// messages, no confirms. Every event sent is recorded (published.jsonl).
type publisher struct {
	url, exchange string
	rec           *recorder
	log           *slog.Logger
	pub           *stacktest.Publisher
	sent          int
}

func (p *publisher) connect() error {
	p.close()
	pub, err := stacktest.DialPublisher(p.url)
	if err != nil {
		return err
	}
	p.pub = pub
	return nil
}

func (p *publisher) close() {
	if p.pub != nil {
		_ = p.pub.Close()
	}
}

// rounds publishes rounds until the one that ends at or after end; before
// that last round it calls final (the final drain's faults). It returns when
// the last round is sent or ctx ends.
func (p *publisher) rounds(ctx context.Context, api *recordingAPI, period time.Duration, end time.Time, final func()) {
	for round := 0; ctx.Err() == nil; round++ {
		start := time.Now()
		last := !start.Add(period).Before(end)
		if last && final != nil {
			final()
		}
		cs := api.snapshot()
		for i, c := range cs {
			at := start.Add(time.Duration(int64(period) * int64(i) / int64(len(cs))))
			if d := time.Until(at); d > 0 {
				select {
				case <-ctx.Done():
					return
				case <-time.After(d):
				}
			}
			p.publish(ctx, c)
			api.touch(c.id, time.Now())
		}
		if last {
			return
		}
		if d := time.Until(start.Add(period)); d > 0 {
			select {
			case <-ctx.Done():
				return
			case <-time.After(d):
			}
		}
	}
}

// drainResend is Sentinel after the last round: every period it resends
// the current event of every cluster recordingAPI.drainResends names (one
// reported not ready, or one whose newest status is older than its
// generation, that the adapter left alone for drainQuiet and whose events
// have all left the run's queues, as held reports them), until every
// cluster is reported ready at its generation (api.settled) or until ends.
// It returns how many events it resent.
func (p *publisher) drainResend(ctx context.Context, api *recordingAPI, period time.Duration, until time.Time, held func() (int, error)) int {
	n := 0
	var emptied time.Time
	for ctx.Err() == nil && time.Now().Before(until) && !api.settled() {
		if m, err := held(); err == nil && m == 0 {
			emptied = time.Now()
		}
		for _, c := range api.drainResends(time.Now(), emptied) {
			p.publish(ctx, c)
			api.touch(c.id, time.Now())
			n++
		}
		select {
		case <-ctx.Done():
			return n
		case <-time.After(period):
		}
	}
	return n
}

// publish sends one event for c with its own id and traceparent and
// records it once the broker took it; a failed publish is retried once on a
// new connection, else dropped (not recorded).
func (p *publisher) publish(ctx context.Context, c cluster) {
	trace, span := randHex(16), randHex(8)
	ev := check.Published{EventID: randHex(16), Cluster: c.id, Generation: c.generation, Deleted: c.deleted, TraceID: trace}
	body := stacktest.Event{ID: ev.EventID, ClusterID: c.id, Generation: c.generation, Time: time.Now(),
		TraceParent: "00-" + trace + "-" + span + "-01"}.JSON()
	for try := 0; try < 2; try++ {
		ev.At = time.Now()
		err := p.pub.Publish(ctx, p.exchange, "cluster.reconcile", ev.EventID, body)
		if err == nil {
			p.rec.add(ev)
			p.sent++
			return
		}
		p.log.Warn("publish failed; reconnecting", "cluster", c.id, "error", err)
		if err := p.connect(); err != nil {
			p.log.Warn("reconnect failed", "error", err)
			return
		}
	}
}

func randHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
