package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sync"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

// sentinelPublisher publishes reconcile events as Sentinel does with
// hyperfleet-broker's defaults: persistent messages (delivery mode 2, as in
// the recorded Sentinel delivery), no publisher confirms
// (broker.rabbitmq.publisher_confirm: false) and not mandatory. The
// harness learns an event's fate from its status PUT, so a message the
// broker dropped is counted lost by its timeout; waiting for a confirm per
// event (what the adapter's own publisher does) would add RabbitMQ work and
// a round trip that Sentinel does not make.
type sentinelPublisher struct {
	conn *amqp.Connection
	mu   sync.Mutex // one publish at a time on ch
	ch   *amqp.Channel
}

func newSentinelPublisher(url string) (*sentinelPublisher, error) {
	conn, err := amqp.Dial(url)
	if err != nil {
		return nil, fmt.Errorf("connect to RabbitMQ: %w", err)
	}
	ch, err := conn.Channel()
	if err != nil {
		_ = conn.Close()
		return nil, fmt.Errorf("open a RabbitMQ channel: %w", err)
	}
	return &sentinelPublisher{conn: conn, ch: ch}, nil
}

// publish sends one message; an error means the connection or channel
// failed (the broker may not have it).
func (p *sentinelPublisher) publish(ctx context.Context, exchange, key string, body []byte) error {
	var id [16]byte
	_, _ = rand.Read(id[:])
	msg := amqp.Publishing{DeliveryMode: amqp.Persistent, MessageId: hex.EncodeToString(id[:]),
		Timestamp: time.Now(), Body: body}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.ch.PublishWithContext(ctx, exchange, key, false, false, msg)
}

func (p *sentinelPublisher) close() error { return p.conn.Close() }
