package main

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/bundle-adapter/bundle-adapter/broker"
	"github.com/bundle-adapter/bundle-adapter/broker/pubsub"
	"github.com/bundle-adapter/bundle-adapter/broker/rabbitmq"
	"github.com/bundle-adapter/bundle-adapter/config"
)

// newConsumer builds the consumer of plan (planServe checked its options):
// subscribed as "<topic>-<subscription_id>" from the adapter config unless
// the broker config names the queue or subscription. With log_config it
// first logs the broker config, secrets redacted. The returned close func
// releases its resources.
func newConsumer(ctx context.Context, cfg *config.Config, plan *startPlan, log *slog.Logger) (broker.Consumer, func(), error) {
	if cfg.Broker.LogConfig {
		log.Info("broker config", "config", cfg.Broker.RedactedYAML())
	}
	switch {
	case plan.rabbitmq != nil:
		return rabbitmq.New(*plan.rabbitmq), func() {}, nil
	case plan.pubsub != nil:
		c, err := pubsub.New(ctx, *plan.pubsub)
		if err != nil {
			return nil, nil, fmt.Errorf("pubsub: %w", err)
		}
		return c, func() { _ = c.Close() }, nil
	}
	return nil, nil, fmt.Errorf("broker type %q is not supported", cfg.Broker.Settings.Type)
}

// rabbitmqOptions maps the broker and adapter configs onto the RabbitMQ
// consumer options. prefetch_size and publisher_confirm have no option:
// they load with a warning (see config.RabbitMQ).
func rabbitmqOptions(cfg *config.Config, log *slog.Logger) rabbitmq.Options {
	sub, r := cfg.Adapter.Clients.Broker, cfg.Broker.Settings.RabbitMQ
	return rabbitmq.Options{
		URL: r.URL.Reveal(), Exchange: r.Exchange, ExchangeType: r.ExchangeType, Queue: r.Queue, RoutingKey: r.RoutingKey,
		ConsumerTag: r.ConsumerTag, Topic: sub.Topic, SubscriptionID: sub.SubscriptionID, Prefetch: r.PrefetchCount,
		ConnectionName: cfg.Adapter.Info.Name, Logger: log,
	}
}

// pubsubOptions maps the broker and adapter configs onto the Pub/Sub
// consumer options. The adapter config's topic wins over the broker file's;
// retry_min_backoff and retry_max_backoff, when set, win over
// broker.delivery's backoffs for the subscription's retry policy.
func pubsubOptions(cfg *config.Config, log *slog.Logger) pubsub.Options {
	sub, b := cfg.Adapter.Clients.Broker, cfg.Broker.Settings
	p := b.GooglePubSub
	o := pubsub.Options{
		ProjectID: p.ProjectID, Topic: cmp.Or(sub.Topic, p.Topic), SubscriptionID: sub.SubscriptionID, Subscription: p.Subscription,
		Endpoint: p.Endpoint.Reveal(), Insecure: p.Insecure,
		AckDeadline: time.Duration(p.AckDeadlineSeconds) * time.Second, MaxOutstandingMessages: p.MaxOutstandingMessages,
		MaxOutstandingBytes: p.MaxOutstandingBytes, NumGoroutines: p.NumGoroutines,
		DeadLetterTopic: p.DeadLetterTopic, MaxDeliveries: p.DeadLetterMaxAttempts,
		MinBackoff: cmp.Or(p.RetryMinBackoff, b.Delivery.MinBackoff).D(), MaxBackoff: cmp.Or(p.RetryMaxBackoff, b.Delivery.MaxBackoff).D(),
		DoNotCreateTopicIfMissing:        p.CreateTopicIfMissing != nil && !*p.CreateTopicIfMissing,
		DoNotCreateSubscriptionIfMissing: p.CreateSubscriptionIfMissing != nil && !*p.CreateSubscriptionIfMissing,
		MessageRetention:                 p.MessageRetentionDuration.D(), TopicRetention: p.TopicRetentionDuration.D(),
		EnableMessageOrdering: p.EnableMessageOrdering, Logger: log,
	}
	if p.ExpirationTTL != nil {
		ttl := p.ExpirationTTL.D()
		o.ExpirationTTL = &ttl
	}
	return o
}
