package rabbitmq

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/bundle-adapter/bundle-adapter/broker"
)

// Consumer consumes the subscription queue; it implements broker.Consumer.
// Create it with New; call Consume once.
type Consumer struct {
	opts  Options
	log   *slog.Logger
	ready atomic.Bool
}

var _ broker.Consumer = (*Consumer)(nil)

// New applies the defaults of Options. It does not connect: Consume does,
// and reports invalid options.
func New(o Options) *Consumer {
	o = o.withDefaults()
	return &Consumer{opts: o, log: o.Logger.With("broker", "rabbitmq", "queue", o.QueueName())}
}

// Options are the options in effect, defaults applied.
func (c *Consumer) Options() Options { return c.opts }

// Ready reports whether the consumer is subscribed to its queue on a live
// connection. It turns false as soon as the connection or a channel closes.
func (c *Consumer) Ready() bool { return c.ready.Load() }

// Consume connects, declares the topology (see the package documentation)
// and calls handle for every message, at most Prefetch of them unsettled at
// once. When the connection or a channel closes it reconnects with backoff
// (MinBackoff doubling to MaxBackoff); messages handed out before cannot be
// settled any more and RabbitMQ redelivers them.
//
// When ctx is done, Consume stops deliveries, waits up to DrainTimeout for
// the messages handed out to be settled, closes the connection and returns
// nil. It returns an error only for what reconnecting cannot fix: invalid
// options, refused credentials or vhost (403), missing permissions, or a
// queue that exists with other settings (406). An exchange that exists with
// another type or settings is not an error: it is used as it is declared,
// and a warning says what differs.
func (c *Consumer) Consume(ctx context.Context, handle func(broker.Message)) error {
	if err := c.opts.validate(); err != nil {
		return err
	}
	backoff := c.opts.MinBackoff
	for {
		subscribed, err := c.session(ctx, handle)
		if ctx.Err() != nil {
			return nil
		}
		if !subscribed && permanent(err) {
			return fmt.Errorf("rabbitmq queue %s: %w", c.opts.QueueName(), err)
		}
		if subscribed {
			backoff = c.opts.MinBackoff
		}
		c.log.Warn("not subscribed; reconnecting", "error", err, "retry_in", backoff)
		if !broker.Wait(ctx, backoff) {
			return nil
		}
		backoff = broker.NextBackoff(backoff, c.opts.MaxBackoff)
	}
}

// session runs one connection until it ends or ctx is done; subscribed
// reports whether it got as far as consuming.
func (c *Consumer) session(ctx context.Context, handle func(broker.Message)) (subscribed bool, err error) {
	s, err := dial(c.opts, c.log)
	if err != nil {
		return false, err
	}
	defer s.close()
	deliveries, err := s.consume()
	if err != nil {
		return false, err
	}
	c.ready.Store(true)
	c.log.Info("subscribed", "url", redactURL(c.opts.URL), "exchange", c.opts.Exchange, "exchange_type", s.kind,
		"binding_key", c.opts.bindingKey(s.kind), "consumer_tag", s.tag, "prefetch", c.opts.Prefetch)
	err = s.deliver(ctx, deliveries, handle)
	c.ready.Store(false)
	if ctx.Err() != nil {
		s.drain(c.opts.DrainTimeout)
	}
	return true, err
}

// permanent reports errors reconnecting cannot fix.
func permanent(err error) bool {
	var amqpErr *amqp.Error
	if !errors.As(err, &amqpErr) {
		return false
	}
	switch amqpErr.Code {
	case amqp.AccessRefused, amqp.PreconditionFailed, amqp.NotAllowed, amqp.InvalidPath:
		return true
	}
	return false
}
