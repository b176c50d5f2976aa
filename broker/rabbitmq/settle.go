package rabbitmq

import (
	"context"
	"errors"
	"fmt"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/bundle-adapter/bundle-adapter/broker"
)

// ErrSettled is returned by a second settle call on one message.
var ErrSettled = errors.New("message already settled")

// ErrConnectionLost is returned when the message arrived on a connection that
// has closed since: it cannot be settled, RabbitMQ redelivers it.
var ErrConnectionLost = errors.New("connection the message arrived on is closed; RabbitMQ redelivers the message")

// Ack removes the message from the queue. An error means the ack may not
// have reached the broker, which then redelivers the message.
func (m *Message) Ack(context.Context) error {
	if err := m.begin(); err != nil {
		return err
	}
	defer m.s.settled()
	if err := m.d.Ack(false); err != nil {
		return m.lost("ack", err)
	}
	m.s.log.Debug("acked", "message_id", m.ID())
	return nil
}

// Release requeues the message at once (basic.nack with requeue). RabbitMQ
// marks it redelivered, so its next Deliveries counts one more: AMQP cannot
// requeue without that. An error means the message stays unacknowledged
// until the connection closes, when RabbitMQ redelivers it.
func (m *Message) Release(context.Context) error {
	if err := m.begin(); err != nil {
		return err
	}
	defer m.s.settled()
	if err := m.d.Nack(false, true); err != nil {
		return m.lost("release", err)
	}
	m.s.log.Debug("released", "message_id", m.ID())
	return nil
}

// Retry publishes a copy with Deliveries()+1 to the delay queue whose TTL is
// delay rounded up to a power of two seconds (at most 65536s), waits for the
// broker's confirm, then acks the original; the copy re-enters the queue
// when its TTL expires. When the copy cannot be stored the original is
// requeued instead (redelivered at once, counted by the Redelivered flag)
// and an error is returned.
func (m *Message) Retry(ctx context.Context, delay time.Duration) error {
	o, ttl := m.s.opts, retryTTL(delay)
	to := func(ch *amqp.Channel) (string, error) { return declareRetryQueue(ch, o, ttl) }
	err := m.republish(ctx, "retry", m.copyFor(m.Deliveries()+1, nil), to)
	if err == nil {
		m.s.log.Debug("retry scheduled", "message_id", m.ID(), "delay", ttl,
			"queue", o.retryQueueName(ttl), "deliveries", m.Deliveries())
	}
	return err
}

// DeadLetter publishes a copy with the header x-dead-letter-reason to the
// dead-letter queue "<queue>.dead-letter", waits for the broker's confirm,
// then acks the original. When the copy cannot be stored the original is
// requeued instead and an error is returned.
func (m *Message) DeadLetter(ctx context.Context, reason string) error {
	o := m.s.opts
	to := func(ch *amqp.Channel) (string, error) { return o.DeadLetterQueueName(), declareDeadLetterQueue(ch, o) }
	err := m.republish(ctx, "dead-letter", m.copyFor(m.Deliveries(), amqp.Table{broker.ReasonAttribute: reason}), to)
	if err == nil {
		m.s.log.Info("dead-lettered", "message_id", m.ID(), "queue", o.DeadLetterQueueName(), "reason", reason)
	}
	return err
}

// republish stores msg in the queue to declares, through the default
// exchange, then acks the original. It requeues the original when the copy
// may not be stored.
func (m *Message) republish(ctx context.Context, verb string, msg amqp.Publishing, to route) error {
	if err := m.begin(); err != nil {
		return err
	}
	defer m.s.settled()
	if err := m.s.alive(); err != nil {
		return m.lost(verb, err)
	}
	if err := m.s.publish(ctx, to, msg); err != nil {
		return m.requeue(verb, err)
	}
	if err := m.d.Ack(false); err != nil {
		return fmt.Errorf("%s message %s: copy stored, but the ack of the original failed, RabbitMQ delivers it again too: %w", verb, m.ID(), err)
	}
	return nil
}

// requeue hands the original back after its copy failed.
func (m *Message) requeue(verb string, cause error) error {
	if err := m.d.Nack(false, true); err != nil {
		return m.lost(verb, errors.Join(cause, err))
	}
	m.s.log.Warn(verb+" failed; message requeued instead", "message_id", m.ID(), "error", cause)
	return fmt.Errorf("%s message %s: %w; the message was requeued instead", verb, m.ID(), cause)
}

// lost reports a message whose channel is gone.
func (m *Message) lost(verb string, cause error) error {
	if errors.Is(cause, amqp.ErrClosed) || errors.Is(cause, ErrConnectionLost) {
		cause = ErrConnectionLost
	}
	m.s.log.Warn(verb+" failed", "message_id", m.ID(), "error", cause)
	return fmt.Errorf("%s message %s: %w", verb, m.ID(), cause)
}

// begin marks the message settled; a message is settled once.
func (m *Message) begin() error {
	if !m.settled.CompareAndSwap(false, true) {
		return fmt.Errorf("message %s: %w", m.ID(), ErrSettled)
	}
	return nil
}
