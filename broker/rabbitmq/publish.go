package rabbitmq

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/bundle-adapter/bundle-adapter/internal/secret"
	amqp "github.com/rabbitmq/amqp091-go"
)

// ErrUnroutable is returned when the broker confirmed a publish it could not
// route to any queue (no queue bound for the routing key).
var ErrUnroutable = errors.New("message unroutable: no queue is bound for it")

// publisher publishes on its own channel in confirm mode, with the
// mandatory flag, one message at a time: a returned (unroutable) message is
// always reported before its confirm, so after the confirm a return in the
// buffer belongs to this publish.
type publisher struct {
	mu      sync.Mutex
	ch      *amqp.Channel
	returns chan amqp.Return
}

func newPublisher(conn *amqp.Connection) (*publisher, error) {
	ch, err := conn.Channel()
	if err != nil {
		return nil, fmt.Errorf("open publish channel: %w", err)
	}
	if err := ch.Confirm(false); err != nil {
		_ = ch.Close()
		return nil, fmt.Errorf("enable publisher confirms: %w", err)
	}
	return &publisher{ch: ch, returns: ch.NotifyReturn(make(chan amqp.Return, 16))}, nil
}

// route names the routing key of a publish; it may declare the target
// queue first. It runs on the publish channel under the publisher's lock.
type route func(*amqp.Channel) (string, error)

// fixedKey is a route to key without declarations.
func fixedKey(key string) route {
	return func(*amqp.Channel) (string, error) { return key, nil }
}

// publish sends msg to exchange with the key route gives and waits until the
// broker confirmed it stored (routed) it. Any error means the message may not
// be stored.
func (p *publisher) publish(ctx context.Context, exchange string, r route, msg amqp.Publishing) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	key, err := r(p.ch)
	if err != nil {
		return err
	}
	p.dropStaleReturns()
	dc, err := p.ch.PublishWithDeferredConfirmWithContext(ctx, exchange, key, true, false, msg)
	if err != nil {
		return fmt.Errorf("publish: %w", err)
	}
	acked, err := dc.WaitContext(ctx)
	if err != nil {
		return fmt.Errorf("wait for publisher confirm: %w", err)
	}
	if !acked {
		return errors.New("broker did not confirm the publish (nack or channel closed)")
	}
	return p.returned(exchange, key, msg.MessageId)
}

// returned reports ErrUnroutable when the message just confirmed came back.
func (p *publisher) returned(exchange, key, messageID string) error {
	for {
		select {
		case r := <-p.returns:
			if r.Exchange == exchange && r.RoutingKey == key && r.MessageId == messageID {
				return fmt.Errorf("%w (exchange %q, routing key %q: %s)", ErrUnroutable, exchange, key, r.ReplyText)
			}
		default:
			return nil
		}
	}
}

// dropStaleReturns empties returns left by a publish that timed out.
func (p *publisher) dropStaleReturns() {
	for {
		select {
		case <-p.returns:
		default:
			return
		}
	}
}

// Publisher publishes messages to an exchange with publisher confirms, for
// tests and local demos (HyperFleet's Sentinel is the real publisher). It is
// safe for concurrent use; publishes are serialized.
type Publisher struct {
	conn *amqp.Connection
	pub  *publisher
}

// NewPublisher connects to url. Close releases the connection.
func NewPublisher(url string) (*Publisher, error) {
	if err := secret.CheckURL(url, "amqp(s)", "amqp", "amqps"); err != nil {
		return nil, fmt.Errorf("rabbitmq url %w", err)
	}
	conn, err := amqp.DialConfig(url, amqp.Config{Dial: amqp.DefaultDial(10 * time.Second)})
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", redactURL(url), err)
	}
	pub, err := newPublisher(conn)
	if err != nil {
		_ = conn.Close()
		return nil, err
	}
	return &Publisher{conn: conn, pub: pub}, nil
}

// Publish sends one persistent message with a fresh message id and waits for
// the broker's confirm. It fails with ErrUnroutable when no queue is bound
// for routingKey: nil means at least one queue stored the message.
func (p *Publisher) Publish(ctx context.Context, exchange, routingKey string, body []byte, headers map[string]any) error {
	msg := amqp.Publishing{
		Headers:      amqp.Table(headers),
		DeliveryMode: amqp.Persistent,
		MessageId:    newID(),
		Timestamp:    time.Now(),
		Body:         body,
	}
	return p.pub.publish(ctx, exchange, fixedKey(routingKey), msg)
}

// Close closes the connection.
func (p *Publisher) Close() error { return p.conn.Close() }

// Publish connects to url, publishes one message as Publisher.Publish does,
// and disconnects.
func Publish(ctx context.Context, url, exchange, routingKey string, body []byte, headers map[string]any) error {
	p, err := NewPublisher(url)
	if err != nil {
		return err
	}
	defer p.Close()
	return p.Publish(ctx, exchange, routingKey, body, headers)
}

// newID is a random 128-bit hex id.
func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
