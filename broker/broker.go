// Package broker is the boundary between message brokers and the pipeline:
// the Message and Consumer interfaces every broker implements, CloudEvent
// decoding of messages, and the delivery contract shared by RabbitMQ and
// Pub/Sub.
//
// Delivery contract (the same on both brokers):
//   - a message is acknowledged only after the pipeline finished and the
//     status was reported;
//   - a transient failure is redelivered with backoff, at most
//     max_deliveries times, then dead-lettered;
//   - a malformed or unroutable message is dead-lettered at once with the
//     reason attached; it never crashes the adapter and never loops;
//   - success with a pending deletion is a success (the next event continues);
//   - a redelivery that a newer event of its resource supersedes is acked
//     without running (Dispatcher, SettledSuperseded).
package broker

import (
	"context"
	"time"
)

// Message is one delivery from a broker. Exactly one of Ack, Retry, Release
// or DeadLetter is called, once. Implementations must allow that call from
// any goroutine.
type Message interface {
	// ID is the broker's message id, for logs.
	ID() string
	// Body is the payload: a structured-mode CloudEvent, or the data of a
	// binary-mode one.
	Body() []byte
	// Attributes are the AMQP headers or Pub/Sub attributes as strings
	// (binary-mode CloudEvent attributes, content type).
	Attributes() map[string]string
	// Deliveries is 1 on the first delivery and counts every redelivery the
	// broker or Retry made.
	Deliveries() int
	// Ack removes the message for good.
	Ack(ctx context.Context) error
	// Retry has the broker deliver the message again, not before delay,
	// counting one more delivery.
	Retry(ctx context.Context, delay time.Duration) error
	// Release gives the message back unprocessed (shutdown), without counting
	// a failed delivery where the broker allows it.
	Release(ctx context.Context) error
	// DeadLetter moves the message to the dead-letter destination with the
	// reason attached (header or attribute "x-dead-letter-reason").
	DeadLetter(ctx context.Context, reason string) error
}

// Consumer delivers messages from one subscription.
type Consumer interface {
	// Consume calls handle for every message until ctx is done, reconnecting
	// with backoff when the connection drops. handle must return quickly (the
	// dispatcher queues the message); Consume bounds the messages outstanding
	// (not yet acked/retried/released/dead-lettered) by its prefetch setting.
	// It returns nil when ctx is done, or an error that reconnecting cannot
	// fix (bad credentials, missing permissions).
	Consume(ctx context.Context, handle func(Message)) error
	// Ready reports whether the consumer is currently subscribed.
	Ready() bool
}

// ReasonAttribute names the header/attribute carrying a dead-letter reason.
const ReasonAttribute = "x-dead-letter-reason"
