package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"time"

	"github.com/bundle-adapter/bundle-adapter/broker/rabbitmq"
	"github.com/bundle-adapter/bundle-adapter/internal/stacktest"
)

// sentinel publishes a reconcile event for the sample cluster every
// interval, as HyperFleet's Sentinel does while a resource is not
// reconciled, with the generation the API currently holds.
type sentinel struct {
	pub       *rabbitmq.Publisher
	api       *fakeAPI
	exchange  string
	interval  time.Duration
	published chan published
	stop      context.CancelFunc
	done      chan struct{}
}

// published is one event sent (or not).
type published struct {
	id         string
	generation int
	err        error
}

func newSentinel(rabbitURL, exchange string, api *fakeAPI, interval time.Duration) (*sentinel, error) {
	pub, err := rabbitmq.NewPublisher(rabbitURL)
	if err != nil {
		return nil, err
	}
	return &sentinel{pub: pub, api: api, exchange: exchange, interval: interval,
		published: make(chan published, 64)}, nil
}

// start publishes at once, then every interval, until stopped.
func (s *sentinel) start(ctx context.Context) {
	ctx, s.stop = context.WithCancel(ctx)
	s.done = make(chan struct{})
	go func() {
		defer close(s.done)
		t := time.NewTicker(s.interval)
		defer t.Stop()
		for {
			s.publishOne(ctx)
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
}

func (s *sentinel) publishOne(ctx context.Context) {
	id, gen := s.api.id(), s.api.generation()
	ev := published{id: "ev-" + randomHex(6), generation: gen}
	body := stacktest.Event{ID: ev.id, Time: time.Now(), ClusterID: id, Generation: gen}.JSON()
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	ev.err = s.pub.Publish(pctx, s.exchange, "cluster.reconcile", body, nil)
	if ctx.Err() != nil {
		return
	}
	select {
	case s.published <- ev:
	default:
	}
}

// halt stops publishing; the connection stays open until close.
func (s *sentinel) halt() {
	if s.stop != nil {
		s.stop()
		<-s.done
		s.stop = nil
	}
}

func (s *sentinel) close() {
	s.halt()
	_ = s.pub.Close()
}

func randomHex(n int) string {
	b := make([]byte, (n+1)/2)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)[:n]
}
