package rabbitmq

import (
	"context"
	"fmt"
	"maps"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/bundle-adapter/bundle-adapter/broker"
	"github.com/bundle-adapter/bundle-adapter/broker/brokertest"
)

// The delivery contract on the machine's RabbitMQ: the scenarios shared
// with Pub/Sub (broker/brokertest), one exchange per scenario.
func TestBrokerContract(t *testing.T) {
	brokertest.Run(t, func(t *testing.T) brokertest.Harness {
		requireRabbit(t)
		return &harness{topic: testTopic(t), declared: map[string]Options{}}
	})
}

// harness runs the shared scenarios on RabbitMQ.
type harness struct {
	topic    string
	declared map[string]Options // by subscription id
}

func (h *harness) options(t *testing.T, subscription string) Options {
	o, ok := h.declared[subscription]
	if !ok {
		o = topicOptions(t, h.topic, subscription)
		h.declared[subscription] = o
	}
	return o.withDefaults()
}

func (h *harness) Consumer(t *testing.T, subscription string) broker.Consumer {
	return New(h.options(t, subscription))
}

// Publish publishes each body with a fresh message id, as
// Publisher.Publish does, and returns the ids.
func (h *harness) Publish(t *testing.T, attrs map[string]string, bodies ...string) []string {
	t.Helper()
	ids := make([]string, len(bodies))
	for i, b := range bodies {
		ids[i] = newID()
		publishRaw(t, h.topic, "clusters.reconcile", amqp.Publishing{Headers: table(attrs), DeliveryMode: amqp.Persistent,
			MessageId: ids[i], Timestamp: time.Now(), Body: []byte(b)})
	}
	return ids
}

// PublishSentinel publishes the captured delivery's properties as they
// are: no message id, no content type, no timestamp, its headers and
// routing key.
func (h *harness) PublishSentinel(t *testing.T, f brokertest.SentinelMessage) {
	t.Helper()
	publishRaw(t, h.topic, f.RoutingKey, amqp.Publishing{Headers: table(f.Headers), DeliveryMode: f.DeliveryMode,
		ContentType: f.ContentType, ContentEncoding: f.ContentEncoding, MessageId: f.MessageID, Body: []byte(f.Body)})
}

// Remaining is the depth of the subscription's queue (its consumers are
// stopped, so unacked messages are back in it).
func (h *harness) Remaining(t *testing.T, subscription string) int {
	return queueDepth(t, h.options(t, subscription).QueueName())
}

// DeadLetters takes every message from the subscription's dead-letter queue.
func (h *harness) DeadLetters(t *testing.T, subscription string) []brokertest.Delivered {
	t.Helper()
	ch := adminChannel(t)
	var out []brokertest.Delivered
	for {
		d, ok, err := ch.Get(h.options(t, subscription).DeadLetterQueueName(), true)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return out
		}
		attrs := map[string]string{}
		for k, v := range d.Headers {
			if s, ok := scalarString(v); ok {
				attrs[k] = s
			}
		}
		out = append(out, brokertest.Delivered{ID: d.MessageId, Body: d.Body, Attributes: attrs, Raw: d})
	}
}

// CheckDeadLetter: the copy keeps the message id and carries the delivery
// count as an AMQP integer.
func (h *harness) CheckDeadLetter(t *testing.T, m broker.Message, _ string, d brokertest.Delivered) {
	t.Helper()
	raw := d.Raw.(amqp.Delivery)
	if raw.MessageId != m.ID() || raw.Headers[DeliveriesHeader] != int64(1) {
		t.Errorf("dead-lettered: id %s (original %s) headers %v", raw.MessageId, m.ID(), raw.Headers)
	}
}

func (h *harness) ErrSettled() error { return ErrSettled }

// publishRaw publishes msg to exchange with key and waits for the broker's
// confirm (the message is stored).
func publishRaw(t *testing.T, exchange, key string, msg amqp.Publishing) {
	t.Helper()
	conn, err := amqp.Dial(testURL())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	p, err := newPublisher(conn)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.publish(ctx, exchange, fixedKey(key), msg); err != nil {
		t.Fatal(fmt.Errorf("publish to %s with key %q: %w", exchange, key, err))
	}
}

func table(attrs map[string]string) amqp.Table {
	t := amqp.Table{}
	for k, v := range maps.All(attrs) {
		t[k] = v
	}
	return t
}
