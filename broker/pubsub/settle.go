package pubsub

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"time"

	"cloud.google.com/go/pubsub/v2"

	"github.com/bundle-adapter/bundle-adapter/broker"
)

// ErrSettled is returned by a second settle call on one message.
var ErrSettled = errors.New("message already settled")

// Attributes DeadLetter adds besides broker.ReasonAttribute.
const (
	// SubscriptionAttribute names the subscription the message came from.
	SubscriptionAttribute = "x-dead-letter-subscription"
	// DeliveriesAttribute is Deliveries() when the message was dead-lettered.
	DeliveriesAttribute = "x-bundle-adapter-deliveries"
)

// Ack acknowledges the message. On a subscription with exactly-once
// delivery nil means Pub/Sub confirmed it; otherwise the ack is sent in the
// background and, if it is lost, Pub/Sub redelivers the message.
func (m *Message) Ack(ctx context.Context) error {
	if err := m.begin(); err != nil {
		return err
	}
	defer m.finish()
	m.c.attempts.forget(m.ID())
	if _, err := m.msg.AckWithResult().Get(ctx); err != nil {
		return fmt.Errorf("ack message %s: %w", m.ID(), err)
	}
	m.c.log.Debug("acked", "message_id", m.ID())
	return nil
}

// Release nacks the message: Pub/Sub redelivers it after the retry
// policy's backoff, to this or another replica. Pub/Sub counts it as a
// delivery attempt; it offers no way not to.
func (m *Message) Release(context.Context) error {
	if err := m.begin(); err != nil {
		return err
	}
	defer m.finish()
	m.msg.Nack()
	m.c.log.Debug("released", "message_id", m.ID())
	return nil
}

// Retry holds the message for delay, extending its lease, then nacks it;
// Pub/Sub redelivers it after its retry-policy backoff, counting one more
// attempt. It returns at once. When Consume's context is done the message
// is nacked at once instead. Retry never fails but on a second settle.
func (m *Message) Retry(_ context.Context, delay time.Duration) error {
	if err := m.begin(); err != nil {
		return err
	}
	defer m.finish()
	m.c.held.hold(m, delay)
	m.c.log.Debug("retry scheduled", "message_id", m.ID(), "delay", delay, "deliveries", m.Deliveries())
	return nil
}

// DeadLetter publishes a copy (data and attributes) with the attributes
// x-dead-letter-reason, x-dead-letter-subscription and
// x-bundle-adapter-deliveries to the dead-letter topic, waits up to
// PublishTimeout for Pub/Sub to store it, then acks the message. When the
// publish fails it nacks the message (Pub/Sub redelivers it) and returns
// the error.
func (m *Message) DeadLetter(ctx context.Context, reason string) error {
	if err := m.begin(); err != nil {
		return err
	}
	defer m.finish()
	if err := m.c.publishDeadLetter(ctx, m.deadLetterCopy(reason)); err != nil {
		m.msg.Nack()
		m.c.log.Warn("dead-letter publish failed; message nacked", "message_id", m.ID(), "error", err)
		return fmt.Errorf("dead-letter message %s: %w; the message was nacked instead", m.ID(), err)
	}
	m.c.attempts.forget(m.ID())
	m.msg.Ack()
	m.c.log.Info("dead-lettered", "message_id", m.ID(), "topic", m.c.opts.DeadLetterTopic, "reason", reason)
	return nil
}

func (m *Message) deadLetterCopy(reason string) *pubsub.Message {
	attrs := maps.Clone(m.msg.Attributes)
	if attrs == nil {
		attrs = map[string]string{}
	}
	attrs[broker.ReasonAttribute] = reason
	attrs[SubscriptionAttribute] = m.c.opts.SubscriptionName()
	attrs[DeliveriesAttribute] = strconv.Itoa(m.Deliveries())
	return &pubsub.Message{Data: m.msg.Data, Attributes: attrs}
}

// publishDeadLetter publishes msg to the dead-letter topic and waits for
// the result.
func (c *Consumer) publishDeadLetter(ctx context.Context, msg *pubsub.Message) error {
	ctx, cancel := context.WithTimeout(ctx, c.opts.PublishTimeout)
	defer cancel()
	if _, err := c.deadLetters.Publish(ctx, msg).Get(ctx); err != nil {
		return fmt.Errorf("publish to %s: %w", c.opts.DeadLetterTopic, err)
	}
	return nil
}

// begin marks the message settled; a message is settled once. The caller
// marks the settle finished (finish) when it returns.
func (m *Message) begin() error {
	if !m.settled.CompareAndSwap(false, true) {
		return fmt.Errorf("message %s: %w", m.ID(), ErrSettled)
	}
	m.c.mu.Lock()
	delete(m.c.unsettled, m)
	m.c.mu.Unlock()
	return nil
}

// finish marks the settle finished: the message no longer counts as in
// flight, and the client's callback that delivered it returns.
func (m *Message) finish() {
	m.c.inflight.Done()
	close(m.done)
}
