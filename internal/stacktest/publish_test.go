package stacktest

import (
	"context"
	"fmt"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

// Publisher sends persistent messages with the id given, or a random one.
func TestPublisher(t *testing.T) {
	url, _, ch := rabbitChannel(t)
	exchange := fmt.Sprintf("stacktest-publish-%d", time.Now().UnixNano())
	queue := exchange + "-q"
	t.Cleanup(func() { _ = DropRabbitMQ(url, exchange, queue) })
	if err := ch.ExchangeDeclare(exchange, "topic", false, true, false, false, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := ch.QueueDeclare(queue, false, true, false, false, nil); err != nil {
		t.Fatal(err)
	}
	if err := ch.QueueBind(queue, "#", exchange, false, nil); err != nil {
		t.Fatal(err)
	}
	p, err := DialPublisher(url)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for _, tc := range []struct{ id, body string }{{"e-1", `{"a":1}`}, {"", `{"b":2}`}} {
		if err := p.Publish(context.Background(), exchange, "cluster.reconcile", tc.id, []byte(tc.body)); err != nil {
			t.Fatal(err)
		}
		var m amqp.Delivery
		for deadline := time.Now().Add(5 * time.Second); ; {
			var ok bool
			if m, ok, err = ch.Get(queue, true); err != nil {
				t.Fatal(err)
			} else if ok {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("message %q never arrived", tc.body)
			}
			time.Sleep(20 * time.Millisecond)
		}
		if string(m.Body) != tc.body || m.DeliveryMode != amqp.Persistent || m.RoutingKey != "cluster.reconcile" ||
			(tc.id != "" && m.MessageId != tc.id) || (tc.id == "" && len(m.MessageId) != 32) {
			t.Errorf("got body %s mode %d key %s id %q; want %s persistent, id %q (32 hex when empty)",
				m.Body, m.DeliveryMode, m.RoutingKey, m.MessageId, tc.body, tc.id)
		}
	}
}
