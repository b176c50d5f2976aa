package pubsub

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"cloud.google.com/go/pubsub/v2"
	"cloud.google.com/go/pubsub/v2/pstest"

	"github.com/bundle-adapter/bundle-adapter/broker"
)

const project = "demo"

// fake is an in-process Pub/Sub server and a client for the test's side.
type fake struct {
	srv    *pstest.Server
	client *pubsub.Client
}

func newFake(t *testing.T, opts ...pstest.ServerReactorOption) *fake {
	t.Helper()
	srv := pstest.NewServer(opts...)
	t.Cleanup(func() { _ = srv.Close() })
	o := Options{Endpoint: srv.Addr}
	client, err := pubsub.NewClient(context.Background(), project, clientOptions(o)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Close() })
	return &fake{srv: srv, client: client}
}

// options are the consumer options of a test on topic clusters.
func (f *fake) options(subscription string) Options {
	return Options{
		ProjectID: project, Topic: "clusters", SubscriptionID: subscription, Endpoint: f.srv.Addr,
		ReconnectMinBackoff: 50 * time.Millisecond, DrainTimeout: 5 * time.Second,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
}

// publish sends data with attributes to topic and waits for the result.
func (f *fake) publish(t *testing.T, topic, data string, attrs map[string]string) string {
	t.Helper()
	p := f.client.Publisher(topic)
	defer p.Stop()
	id, err := p.Publish(context.Background(), &pubsub.Message{Data: []byte(data), Attributes: attrs}).Get(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// publishBatch sends n messages ("0".."n-1") in one batch.
func (f *fake) publishBatch(t *testing.T, topic string, n int) {
	t.Helper()
	p := f.client.Publisher(topic)
	defer p.Stop()
	p.PublishSettings.CountThreshold = n
	p.PublishSettings.DelayThreshold = time.Second
	var results []*pubsub.PublishResult
	for i := range n {
		results = append(results, p.Publish(context.Background(), &pubsub.Message{Data: []byte(fmt.Sprint(i))}))
	}
	for _, r := range results {
		if _, err := r.Get(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
}

// running is a Consumer whose Consume runs until the test ends (or stop).
type running struct {
	*Consumer
	msgs   chan *Message
	cancel context.CancelFunc
	done   chan struct{}
	err    error
}

func start(t *testing.T, o Options) *running {
	t.Helper()
	c, err := New(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{Consumer: c, msgs: make(chan *Message, 100), cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		r.err = c.Consume(ctx, func(m broker.Message) { r.msgs <- m.(*Message) })
	}()
	t.Cleanup(func() {
		r.stop(t)
		_ = c.Close()
	})
	waitFor(t, "consumer receiving", r.Ready)
	return r
}

func (r *running) stop(t *testing.T) {
	t.Helper()
	r.cancel()
	select {
	case <-r.done:
		if r.err != nil {
			t.Errorf("Consume returned %v", r.err)
		}
	case <-time.After(10 * time.Second):
		t.Error("Consume did not return after its context was done")
	}
}

func (r *running) receive(t *testing.T) *Message {
	t.Helper()
	select {
	case m := <-r.msgs:
		return m
	case <-time.After(10 * time.Second):
		t.Fatal("no message within 10s")
		return nil
	}
}

func (r *running) expectNone(t *testing.T, d time.Duration) {
	t.Helper()
	select {
	case m := <-r.msgs:
		t.Fatalf("unexpected message %s (deliveries %d)", m.ID(), m.Deliveries())
	case <-time.After(d):
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// pullOne receives one message from subscription with a plain subscriber.
func (f *fake) pullOne(t *testing.T, subscription string) *pubsub.Message {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var got *pubsub.Message
	err := f.client.Subscriber(subscription).Receive(ctx, func(_ context.Context, m *pubsub.Message) {
		m.Ack()
		if got == nil {
			got = m
		}
		cancel()
	})
	if err != nil || got == nil {
		t.Fatalf("nothing received from %s: %v", subscription, err)
	}
	return got
}
