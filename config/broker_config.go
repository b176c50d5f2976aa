package config

import "net"

// BrokerConfig is broker.yaml (path from BROKER_CONFIG_FILE). Every leaf can be
// overridden by the environment variable named by its upper-cased path, e.g.
// BROKER_RABBITMQ_URL or SUBSCRIBER_PARALLELISM.
type BrokerConfig struct {
	Settings   BrokerSettings   `yaml:"broker"`
	Subscriber SubscriberConfig `yaml:"subscriber"`
}

// BrokerSettings selects and configures the message broker.
type BrokerSettings struct {
	Type         string        `yaml:"type"`
	RabbitMQ     RabbitMQ      `yaml:"rabbitmq"`
	GooglePubSub GooglePubSub  `yaml:"googlepubsub"`
	Delivery     DeliveryRules `yaml:"delivery"`
}

// RabbitMQ configures the AMQP consumer. URL may carry credentials; they are
// redacted from dumps and logs. Defaults: exchange_type topic, prefetch 10.
type RabbitMQ struct {
	URL           string `yaml:"url"`
	Exchange      string `yaml:"exchange"`
	ExchangeType  string `yaml:"exchange_type"`
	PrefetchCount int    `yaml:"prefetch_count"`
}

// GooglePubSub configures the Pub/Sub consumer. Defaults: ack deadline 60s,
// 5 delivery attempts before dead-lettering, 1000 outstanding messages.
type GooglePubSub struct {
	ProjectID              string `yaml:"project_id"`
	AckDeadlineSeconds     int    `yaml:"ack_deadline_seconds"`
	DeadLetterMaxAttempts  int    `yaml:"dead_letter_max_attempts"`
	DeadLetterTopic        string `yaml:"dead_letter_topic"`
	MaxOutstandingMessages int    `yaml:"max_outstanding_messages"`
	// Endpoint (host:port) replaces Google's endpoint. A loopback address
	// (an emulator beside the adapter) is reached in plaintext without
	// credentials, any other over TLS with Application Default Credentials
	// unless Insecure is set.
	Endpoint string `yaml:"endpoint"`
	// Insecure reaches a non-loopback Endpoint in plaintext without
	// credentials (an emulator on another host); requires Endpoint.
	Insecure bool `yaml:"insecure"`
}

// DeliveryRules is the at-least-once contract shared by both brokers: a failed
// event is redelivered with backoff at most MaxDeliveries times, then
// dead-lettered. Defaults: 5 deliveries, backoff 1s doubling to 1m.
type DeliveryRules struct {
	MaxDeliveries int      `yaml:"max_deliveries"`
	MinBackoff    Duration `yaml:"min_backoff"`
	MaxBackoff    Duration `yaml:"max_backoff"`
}

// SubscriberConfig sets how many events are processed at once. Events for the
// same resource are never processed concurrently, whatever the parallelism.
type SubscriberConfig struct {
	Parallelism     int      `yaml:"parallelism"`
	ShutdownTimeout Duration `yaml:"shutdown_timeout"`
}

func defaultBrokerConfig() BrokerConfig {
	return BrokerConfig{
		Settings: BrokerSettings{
			RabbitMQ:     RabbitMQ{ExchangeType: "topic", PrefetchCount: 10},
			GooglePubSub: GooglePubSub{AckDeadlineSeconds: 60, DeadLetterMaxAttempts: 5, MaxOutstandingMessages: 1000},
			Delivery:     DeliveryRules{MaxDeliveries: 5, MinBackoff: Duration(1e9), MaxBackoff: Duration(60e9)},
		},
		Subscriber: SubscriberConfig{Parallelism: 4, ShutdownTimeout: Duration(30e9)},
	}
}

func (c *BrokerConfig) validate(l *errorList) {
	switch c.Settings.Type {
	case "rabbitmq":
		if c.Settings.RabbitMQ.URL == "" {
			l.add("broker.rabbitmq.url", "is required when broker.type is rabbitmq")
		} else {
			checkAMQPURL(l, "broker.rabbitmq.url", c.Settings.RabbitMQ.URL)
		}
		if c.Settings.RabbitMQ.Exchange == "" {
			l.add("broker.rabbitmq.exchange", "is required when broker.type is rabbitmq")
		}
		oneOf(l, "broker.rabbitmq.exchange_type", c.Settings.RabbitMQ.ExchangeType, "topic", "direct", "fanout")
	case "googlepubsub":
		if c.Settings.GooglePubSub.ProjectID == "" {
			l.add("broker.googlepubsub.project_id", "is required when broker.type is googlepubsub")
		}
		c.Settings.GooglePubSub.validateEndpoint(l, "broker.googlepubsub")
	case "":
		l.add("broker.type", "is required (rabbitmq or googlepubsub)")
	default:
		l.add("broker.type", "must be rabbitmq or googlepubsub, not %q", c.Settings.Type)
	}
	if c.Subscriber.Parallelism < 1 {
		l.add("subscriber.parallelism", "must be at least 1")
	}
	if c.Settings.Delivery.MaxDeliveries < 1 {
		l.add("broker.delivery.max_deliveries", "must be at least 1")
	}
	checkBackoffs(l, "broker.delivery", c.Settings.Delivery.MinBackoff, c.Settings.Delivery.MaxBackoff)
}

// validateEndpoint refuses an endpoint that is not host:port and insecure
// without an endpoint.
func (p *GooglePubSub) validateEndpoint(l *errorList, path string) {
	if p.Endpoint != "" {
		if _, _, err := net.SplitHostPort(p.Endpoint); err != nil {
			l.add(path+".endpoint", "must be host:port, not %q", p.Endpoint)
		}
	}
	if p.Insecure && p.Endpoint == "" {
		l.add(path+".insecure", "requires endpoint (an emulator): Google's endpoint is always reached over TLS")
	}
}
