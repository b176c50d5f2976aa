package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/bundle-adapter/bundle-adapter/broker"
	"github.com/bundle-adapter/bundle-adapter/broker/pubsub"
	"github.com/bundle-adapter/bundle-adapter/broker/rabbitmq"
	"github.com/bundle-adapter/bundle-adapter/config"
)

// newConsumer builds the consumer the broker config selects, subscribed as
// "<topic>-<subscription_id>" from the adapter config. The returned close
// func releases its resources.
func newConsumer(ctx context.Context, cfg *config.Config, log *slog.Logger) (broker.Consumer, func(), error) {
	sub := cfg.Adapter.Clients.Broker
	b := cfg.Broker.Settings
	switch b.Type {
	case "rabbitmq":
		c := rabbitmq.New(rabbitmq.Options{
			URL: b.RabbitMQ.URL, Exchange: b.RabbitMQ.Exchange, ExchangeType: b.RabbitMQ.ExchangeType,
			Topic: sub.Topic, SubscriptionID: sub.SubscriptionID, Prefetch: b.RabbitMQ.PrefetchCount,
			ConnectionName: cfg.Adapter.Info.Name, Logger: log,
		})
		return c, func() {}, nil
	case "googlepubsub":
		c, err := pubsub.New(ctx, pubsubOptions(cfg, log))
		if err != nil {
			return nil, nil, fmt.Errorf("pubsub: %w", err)
		}
		return c, func() { _ = c.Close() }, nil
	}
	return nil, nil, fmt.Errorf("broker type %q is not supported", b.Type)
}

// pubsubOptions maps the broker and adapter configs onto the Pub/Sub
// consumer options.
func pubsubOptions(cfg *config.Config, log *slog.Logger) pubsub.Options {
	sub, b := cfg.Adapter.Clients.Broker, cfg.Broker.Settings
	p := b.GooglePubSub
	return pubsub.Options{
		ProjectID: p.ProjectID, Topic: sub.Topic, SubscriptionID: sub.SubscriptionID,
		Endpoint: p.Endpoint, Insecure: p.Insecure,
		AckDeadline: time.Duration(p.AckDeadlineSeconds) * time.Second, MaxOutstandingMessages: p.MaxOutstandingMessages,
		DeadLetterTopic: p.DeadLetterTopic, MaxDeliveries: p.DeadLetterMaxAttempts,
		MinBackoff: b.Delivery.MinBackoff.D(), MaxBackoff: b.Delivery.MaxBackoff.D(), Logger: log,
	}
}
