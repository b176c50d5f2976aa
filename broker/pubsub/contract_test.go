package pubsub

import (
	"context"
	"fmt"
	"maps"
	"testing"
	"time"

	"cloud.google.com/go/pubsub/v2"
	"cloud.google.com/go/pubsub/v2/pstest"

	"github.com/bundle-adapter/bundle-adapter/broker"
	"github.com/bundle-adapter/bundle-adapter/broker/brokertest"
)

// The delivery contract on Pub/Sub (the real client on pstest): the
// scenarios shared with RabbitMQ (broker/brokertest), one server per
// scenario.
func TestBrokerContract(t *testing.T) {
	brokertest.Run(t, func(t *testing.T) brokertest.Harness {
		return &harness{fake: newFake(t), seen: map[string]bool{}}
	})
}

// harness runs the shared scenarios on topic clusters of a pstest server.
type harness struct {
	*fake
	seen map[string]bool // dead letters already returned, by id
}

const topicName = "projects/" + project + "/topics/clusters"

func (h *harness) Consumer(t *testing.T, subscription string) broker.Consumer {
	return newConsumer(t, h.options(subscription))
}

// Publish sends every body in one batch and returns the message ids.
func (h *harness) Publish(t *testing.T, attrs map[string]string, bodies ...string) []string {
	t.Helper()
	p := h.client.Publisher("clusters")
	defer p.Stop()
	p.PublishSettings.CountThreshold = len(bodies)
	p.PublishSettings.DelayThreshold = time.Second
	p.PublishSettings.ByteThreshold = 16 << 20 // oversized bodies too
	var results []*pubsub.PublishResult
	for _, b := range bodies {
		results = append(results, p.Publish(context.Background(), &pubsub.Message{Data: []byte(b), Attributes: attrs}))
	}
	ids := make([]string, len(results))
	for i, r := range results {
		id, err := r.Get(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = id
	}
	return ids
}

// PublishSentinel publishes the fixture's body as the data and its AMQP
// headers as attributes: the same message on Pub/Sub, where there is no
// content type or message id property to leave out.
func (h *harness) PublishSentinel(t *testing.T, f brokertest.SentinelMessage) {
	t.Helper()
	h.publish(t, "clusters", f.Body, f.Headers)
}

// Remaining counts the topic's messages not acked exactly once (one Ack
// reaches the server once; a second is refused as ErrSettled).
func (h *harness) Remaining(_ *testing.T, _ string) int {
	n := 0
	for _, m := range h.srv.Messages() {
		if m.Topic == topicName && m.Acks != 1 {
			n++
		}
	}
	return n
}

// DeadLetters returns the messages published to the subscription's
// dead-letter topic since the previous call.
func (h *harness) DeadLetters(_ *testing.T, subscription string) []brokertest.Delivered {
	topic := fmt.Sprintf("projects/%s/topics/%s-dlq", project, subscription)
	var out []brokertest.Delivered
	for _, m := range h.srv.Messages() {
		if m.Topic != topic || h.seen[m.ID] {
			continue
		}
		h.seen[m.ID] = true
		out = append(out, brokertest.Delivered{ID: m.ID, Body: m.Data, Attributes: m.Attributes, Raw: m})
	}
	return out
}

// CheckDeadLetter: the copy carries exactly the original's attributes, the
// reason, the subscription and the delivery count.
func (h *harness) CheckDeadLetter(t *testing.T, m broker.Message, subscription string, d brokertest.Delivered) {
	t.Helper()
	want := maps.Clone(m.Attributes())
	want[broker.ReasonAttribute] = d.Attributes[broker.ReasonAttribute]
	want[SubscriptionAttribute] = subscription
	want[DeliveriesAttribute] = fmt.Sprint(m.Deliveries())
	if fmt.Sprint(d.Attributes) != fmt.Sprint(want) {
		t.Errorf("dead-lettered with attributes %v, want %v", d.Attributes, want)
	}
	if _, ok := d.Raw.(*pstest.Message); !ok {
		t.Errorf("raw dead letter %T", d.Raw)
	}
}

func (h *harness) ErrSettled() error { return ErrSettled }
