package config

import (
	"net"
	"time"

	"github.com/bundle-adapter/bundle-adapter/internal/configfile"
	"github.com/bundle-adapter/bundle-adapter/internal/secret"
)

// BrokerConfig is broker.yaml (path from BROKER_CONFIG_FILE). Every leaf can be
// overridden by the environment variable named by its upper-cased path, e.g.
// BROKER_RABBITMQ_URL or SUBSCRIBER_PARALLELISM.
//
// Every key of hyperfleet-broker's broker.yaml loads and means what it means
// there, except where Warnings says otherwise.
type BrokerConfig struct {
	Settings   BrokerSettings   `yaml:"broker"`
	Subscriber SubscriberConfig `yaml:"subscriber"`
	// LogConfig logs the broker config in effect (secrets redacted) when
	// serve starts, as hyperfleet-broker's log_config does.
	LogConfig bool `yaml:"log_config"`
	// Publisher is hyperfleet-broker's publisher settings (Sentinel's
	// chart renders them): loaded with a warning and ignored, bundle-adapter
	// publishes only its own retry and dead-letter copies.
	Publisher ignoredKey `yaml:"publisher,omitempty"`
	// Warnings are the load warnings of the file: keys accepted so
	// HyperFleet's broker files load unchanged, that mean less here.
	Warnings configfile.Errors `yaml:"-"`
}

// BrokerSettings selects and configures the message broker.
type BrokerSettings struct {
	Type         string        `yaml:"type"`
	RabbitMQ     RabbitMQ      `yaml:"rabbitmq"`
	GooglePubSub GooglePubSub  `yaml:"googlepubsub"`
	Delivery     DeliveryRules `yaml:"delivery"`
	// Subscriber is where hyperfleet-adapter's chart renders the subscriber
	// block. hyperfleet-broker ignores it there; here it applies as the
	// top-level subscriber when that is absent (with a warning either way).
	Subscriber *SubscriberConfig `yaml:"subscriber,omitempty"`
	// Publisher: see BrokerConfig.Publisher.
	Publisher ignoredKey `yaml:"publisher,omitempty"`
}

// RabbitMQ configures the AMQP consumer, with hyperfleet-broker's keys and
// defaults. URL may carry credentials; they are redacted from dumps and
// logs.
type RabbitMQ struct {
	URL secret.URL `yaml:"url"`
	// Exchange the events are published to; default the topic.
	Exchange string `yaml:"exchange"`
	// ExchangeType is declared when the exchange does not exist: fanout
	// (the default, as hyperfleet-broker declares it), topic, direct or
	// headers. An exchange that exists with another type is used as it is.
	ExchangeType string `yaml:"exchange_type"`
	// Queue replaces the topic in the queue name: "<queue>-<subscription_id>",
	// as hyperfleet-broker names it; default "<topic>-<subscription_id>".
	Queue string `yaml:"queue"`
	// RoutingKey binds the queue to the exchange: the key the publisher
	// sends with (hyperfleet-broker's publisher sends routing_key, default
	// empty). Default "#" on a topic exchange, empty on the others.
	RoutingKey string `yaml:"routing_key"`
	// PrefetchCount bounds the messages handed out and not yet settled;
	// default 10 (0 means the default).
	PrefetchCount int `yaml:"prefetch_count"`
	// PrefetchSize loads with a warning: RabbitMQ does not implement it.
	PrefetchSize int `yaml:"prefetch_size"`
	// ConsumerTag names the consumer (shown by rabbitmqctl list_consumers);
	// default "bundle-adapter-<random>".
	ConsumerTag string `yaml:"consumer_tag"`
	// PublisherConfirm: bundle-adapter always waits for RabbitMQ's confirm
	// of its retry and dead-letter copies; false loads with a warning.
	PublisherConfirm *bool `yaml:"publisher_confirm,omitempty"`
}

// GooglePubSub configures the Pub/Sub consumer, with hyperfleet-broker's
// keys. Defaults: ack deadline 60s, 5 delivery attempts before
// dead-lettering, 1000 outstanding messages; what is missing is created
// unless create_topic_if_missing / create_subscription_if_missing is false.
type GooglePubSub struct {
	ProjectID string `yaml:"project_id"`
	// Topic is read when the adapter config names no topic
	// (clients.broker.topic wins).
	Topic string `yaml:"topic"`
	// Subscription names the subscription outright; default
	// "<topic>-<subscription_id>".
	Subscription           string `yaml:"subscription"`
	AckDeadlineSeconds     int    `yaml:"ack_deadline_seconds"`
	DeadLetterMaxAttempts  int    `yaml:"dead_letter_max_attempts"`
	DeadLetterTopic        string `yaml:"dead_letter_topic"`
	MaxOutstandingMessages int    `yaml:"max_outstanding_messages"`
	// MaxOutstandingBytes bounds the bytes of the messages handed out;
	// 0 is the client's default.
	MaxOutstandingBytes int `yaml:"max_outstanding_bytes"`
	// NumGoroutines is the client's number of receiving streams; 0 is the
	// client's default.
	NumGoroutines int `yaml:"num_goroutines"`
	// CreateTopicIfMissing and CreateSubscriptionIfMissing: false refuses
	// to start when the topic (or the dead-letter topic) or the
	// subscription does not exist, naming it. Absent means true, which is
	// what bundle-adapter always did (hyperfleet-broker's default is false).
	CreateTopicIfMissing        *bool `yaml:"create_topic_if_missing,omitempty"`
	CreateSubscriptionIfMissing *bool `yaml:"create_subscription_if_missing,omitempty"`
	// The settings of a subscription or topic created here (an existing
	// one is left as it is); 0 or absent is Pub/Sub's default. Durations
	// are Go durations, seconds ("604800s") or days ("7d").
	MessageRetentionDuration configfile.Duration  `yaml:"message_retention_duration"`
	ExpirationTTL            *configfile.Duration `yaml:"expiration_ttl,omitempty"` // 0: never expire
	EnableMessageOrdering    bool                 `yaml:"enable_message_ordering"`
	// RetryMinBackoff and RetryMaxBackoff are the subscription's retry
	// policy; default broker.delivery's min_backoff and max_backoff.
	RetryMinBackoff        configfile.Duration `yaml:"retry_min_backoff"`
	RetryMaxBackoff        configfile.Duration `yaml:"retry_max_backoff"`
	TopicRetentionDuration configfile.Duration `yaml:"topic_retention_duration"`
	// Endpoint (host:port) replaces Google's endpoint. A loopback address
	// (an emulator beside the adapter) is reached in plaintext without
	// credentials, any other over TLS with Application Default Credentials
	// unless Insecure is set.
	Endpoint secret.URL `yaml:"endpoint"`
	// Insecure reaches a non-loopback Endpoint in plaintext without
	// credentials (an emulator on another host); requires Endpoint.
	Insecure bool `yaml:"insecure"`
}

// DeliveryRules is the at-least-once contract shared by both brokers: a failed
// event is redelivered with backoff at most MaxDeliveries times, then
// dead-lettered. Defaults: 5 deliveries, backoff 1s doubling to 1m.
type DeliveryRules struct {
	MaxDeliveries int                 `yaml:"max_deliveries"`
	MinBackoff    configfile.Duration `yaml:"min_backoff"`
	MaxBackoff    configfile.Duration `yaml:"max_backoff"`
}

// SubscriberConfig sets how many events are processed at once. Events for the
// same resource are never processed concurrently, whatever the parallelism.
// EventTimeout is the deadline of one event's whole run (default 5m, within
// MinEventTimeout and MaxEventTimeout): a run past it is cancelled and its
// message redelivered.
type SubscriberConfig struct {
	Parallelism     int                 `yaml:"parallelism"`
	ShutdownTimeout configfile.Duration `yaml:"shutdown_timeout"`
	EventTimeout    configfile.Duration `yaml:"event_timeout"`
}

// Bounds of subscriber.event_timeout: an event needs a few reads and
// writes, each bounded by its client's timeout; RabbitMQ closes the
// channel of a delivery left unacknowledged past its consumer_timeout (30m
// by default), so a run must end before.
const (
	DefaultEventTimeout = 5 * time.Minute
	MinEventTimeout     = time.Second
	MaxEventTimeout     = 30 * time.Minute
)

func defaultBrokerConfig() BrokerConfig {
	return BrokerConfig{
		Settings: BrokerSettings{
			RabbitMQ:     RabbitMQ{PrefetchCount: 10},
			GooglePubSub: GooglePubSub{AckDeadlineSeconds: 60, DeadLetterMaxAttempts: 5, MaxOutstandingMessages: 1000},
			// MinBackoff 10s: Sentinel resends a resource whose status is not
			// current every 5-10 s, so a sooner redelivery repeats its retry;
			// with superseding an API outage costs one run per Sentinel event.
			Delivery: DeliveryRules{MaxDeliveries: 5, MinBackoff: configfile.Duration(10e9), MaxBackoff: configfile.Duration(60e9)},
		},
		Subscriber: SubscriberConfig{Parallelism: 4, ShutdownTimeout: configfile.Duration(30e9), EventTimeout: configfile.Duration(DefaultEventTimeout)},
	}
}

func (c *BrokerConfig) validate(l *configfile.ErrorList) {
	switch c.Settings.Type {
	case "rabbitmq":
		if c.Settings.RabbitMQ.URL.IsZero() {
			l.Add("broker.rabbitmq.url", "is required when broker.type is rabbitmq")
		} else {
			checkAMQPURL(l, "broker.rabbitmq.url", c.Settings.RabbitMQ.URL)
		}
		c.Settings.RabbitMQ.validate(l, "broker.rabbitmq")
	case "googlepubsub":
		if c.Settings.GooglePubSub.ProjectID == "" {
			l.Add("broker.googlepubsub.project_id", "is required when broker.type is googlepubsub")
		}
		c.Settings.GooglePubSub.validateEndpoint(l, "broker.googlepubsub")
		c.Settings.GooglePubSub.validate(l, "broker.googlepubsub")
	case "":
		l.Add("broker.type", "is required (rabbitmq or googlepubsub)")
	default:
		l.Add("broker.type", "must be rabbitmq or googlepubsub, not %q", c.Settings.Type)
	}
	if lo, hi := c.Settings.Delivery.MinBackoff, c.Settings.Delivery.MaxBackoff; lo > hi {
		l.Add("broker.delivery.min_backoff", "%s is above max_backoff %s", lo, hi)
	}
}

// validateEndpoint refuses an endpoint that is not host:port and insecure
// without an endpoint.
func (p *GooglePubSub) validateEndpoint(l *configfile.ErrorList, path string) {
	if !p.Endpoint.IsZero() {
		if err := secret.CheckAddress(p.Endpoint.Reveal()); err != nil {
			l.Add(path+".endpoint", "%v", err)
		} else if _, _, err := net.SplitHostPort(p.Endpoint.Reveal()); err != nil {
			l.Add(path+".endpoint", "must be host:port, not %q", p.Endpoint)
		}
	}
	if p.Insecure && p.Endpoint.IsZero() {
		l.Add(path+".insecure", "requires endpoint (an emulator): Google's endpoint is always reached over TLS")
	}
}
