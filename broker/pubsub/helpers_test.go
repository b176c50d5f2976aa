package pubsub

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"cloud.google.com/go/pubsub/v2"
	"cloud.google.com/go/pubsub/v2/pstest"

	"github.com/bundle-adapter/bundle-adapter/broker/brokertest"
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

// running is a Consumer whose Consume runs until the test ends (or stop).
type running struct {
	*brokertest.Running
	*Consumer
}

// start runs Consume on a new consumer and waits until it receives; the
// consumer is stopped and closed when the test ends.
func start(t *testing.T, o Options) *running {
	t.Helper()
	c := newConsumer(t, o)
	return &running{brokertest.Start(t, c), c}
}

// newConsumer is a consumer closed when the test ends (after Consume
// returned: cleanups registered later run first).
func newConsumer(t *testing.T, o Options) *Consumer {
	t.Helper()
	c, err := New(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func (r *running) receive(t *testing.T) *Message {
	t.Helper()
	return r.Receive(t).(*Message)
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	brokertest.WaitFor(t, what, cond)
}
