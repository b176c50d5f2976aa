package stacktest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sync"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

// Publisher publishes reconcile events as HyperFleet's Sentinel does with
// hyperfleet-broker's defaults: persistent messages (delivery mode 2, as in
// the recorded Sentinel delivery), no publisher confirms
// (broker.rabbitmq.publisher_confirm: false) and not mandatory. A harness
// learns an event's fate from its status report, so a message the broker
// dropped shows as lost there; waiting for a confirm per event (what the
// adapter's own publisher does) would add RabbitMQ work and a round trip
// that Sentinel does not make. Its methods may be called from any
// goroutine; publishes go one at a time.
type Publisher struct {
	conn *amqp.Connection
	mu   sync.Mutex // one publish at a time on ch
	ch   *amqp.Channel
}

// DialPublisher connects to the RabbitMQ at url and opens the channel
// Publish uses.
func DialPublisher(url string) (*Publisher, error) {
	conn, err := amqp.Dial(url)
	if err != nil {
		return nil, fmt.Errorf("connect to RabbitMQ: %w", err)
	}
	ch, err := conn.Channel()
	if err != nil {
		_ = conn.Close()
		return nil, fmt.Errorf("open a RabbitMQ channel: %w", err)
	}
	return &Publisher{conn: conn, ch: ch}, nil
}

// Publish sends body to exchange with routing key key and message id id
// (empty: a random one). An error means the connection or channel failed:
// the broker may not have the message, and the Publisher is done (dial a
// new one).
func (p *Publisher) Publish(ctx context.Context, exchange, key, id string, body []byte) error {
	if id == "" {
		var b [16]byte
		_, _ = rand.Read(b[:])
		id = hex.EncodeToString(b[:])
	}
	msg := amqp.Publishing{DeliveryMode: amqp.Persistent, MessageId: id, Timestamp: time.Now(), Body: body}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.ch.PublishWithContext(ctx, exchange, key, false, false, msg)
}

// Close closes the connection.
func (p *Publisher) Close() error { return p.conn.Close() }
