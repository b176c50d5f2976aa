package config

import (
	"github.com/bundle-adapter/bundle-adapter/internal/configfile"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Broker files in the shapes HyperFleet writes them (hyperfleet-adapter's
// chart for both brokers, its test data, Sentinel's chart) load unchanged:
// every hyperfleet-broker key is read, and a key without meaning here loads
// with a warning that says so.
func TestLoadHyperFleetBrokerFiles(t *testing.T) {
	tests := []struct {
		file  string
		check func(t *testing.T, c *BrokerConfig)
		warns []string // substrings, one warning each, in order
	}{
		{"broker-rabbitmq-chart.yaml", func(t *testing.T, c *BrokerConfig) {
			r := c.Settings.RabbitMQ
			if r.Exchange != "" || r.Queue != "" || r.ExchangeType != "topic" {
				t.Errorf("rabbitmq = %+v", r)
			}
		}, nil},
		{"broker-rabbitmq-full.yaml", func(t *testing.T, c *BrokerConfig) {
			r := c.Settings.RabbitMQ
			if r.Exchange != "hf-events" || r.ExchangeType != "direct" || r.Queue != "hf-adapter" || r.RoutingKey != "clusters" ||
				r.PrefetchCount != 3 || r.PrefetchSize != 4096 || r.ConsumerTag != "adapter-a" || r.PublisherConfirm == nil || *r.PublisherConfirm {
				t.Errorf("rabbitmq = %+v", r)
			}
			if c.Subscriber.Parallelism != 2 || c.LogConfig {
				t.Errorf("subscriber = %+v, log_config = %v", c.Subscriber, c.LogConfig)
			}
		}, []string{
			"broker.rabbitmq.prefetch_size: is ignored: RabbitMQ does not implement prefetch_size",
			"broker.rabbitmq.publisher_confirm: false is ignored: bundle-adapter always waits for RabbitMQ's confirm",
			"publisher: is ignored: it configures hyperfleet-broker's publisher",
		}},
		{"broker-googlepubsub-chart.yaml", func(t *testing.T, c *BrokerConfig) {
			p := c.Settings.GooglePubSub
			if p.ProjectID != "hf-staging" || p.Topic != "hf-clusters" || p.DeadLetterTopic != "hf-clusters-dead" ||
				p.CreateTopicIfMissing == nil || *p.CreateTopicIfMissing || p.CreateSubscriptionIfMissing == nil || *p.CreateSubscriptionIfMissing ||
				p.MessageRetentionDuration.D() != 48*time.Hour || p.ExpirationTTL == nil || p.ExpirationTTL.D() != 0 {
				t.Errorf("googlepubsub = %+v", p)
			}
			if c.Subscriber.Parallelism != 1 {
				t.Errorf("broker.subscriber not applied: %+v", c.Subscriber)
			}
		}, []string{
			"broker.subscriber: hyperfleet-broker reads subscriber at the top level and ignores it here; bundle-adapter applies it",
		}},
		{"broker-googlepubsub-full.yaml", func(t *testing.T, c *BrokerConfig) {
			p := c.Settings.GooglePubSub
			if p.AckDeadlineSeconds != 90 || p.MessageRetentionDuration.D() != 24*time.Hour || p.ExpirationTTL == nil || p.ExpirationTTL.D() != 72*time.Hour ||
				!p.EnableMessageOrdering || p.RetryMinBackoff.D() != 5*time.Second || p.RetryMaxBackoff.D() != 300*time.Second ||
				p.DeadLetterMaxAttempts != 7 || p.TopicRetentionDuration.D() != 12*time.Hour || p.MaxOutstandingMessages != 200 ||
				p.MaxOutstandingBytes != 52428800 || p.NumGoroutines != 4 || !*p.CreateTopicIfMissing || !*p.CreateSubscriptionIfMissing {
				t.Errorf("googlepubsub = %+v", p)
			}
			if c.Subscriber.Parallelism != 6 || !c.LogConfig {
				t.Errorf("subscriber = %+v, log_config = %v", c.Subscriber, c.LogConfig)
			}
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			c, err := LoadBrokerConfig("testdata/hyperfleet/" + tt.file)
			if err != nil {
				t.Fatalf("does not load: %v", err)
			}
			tt.check(t, c)
			if len(c.Warnings) != len(tt.warns) {
				t.Fatalf("warnings = %v; want %d", c.Warnings, len(tt.warns))
			}
			for i, w := range tt.warns {
				if got := c.Warnings[i].Error(); !strings.Contains(got, w) {
					t.Errorf("warning %d = %q; want it to contain %q", i, got, w)
				}
			}
		})
	}
}

// What hyperfleet-broker refuses is refused here too, naming the key.
func TestHyperFleetBrokerKeysValidated(t *testing.T) {
	tests := []struct {
		name, yaml, want string
	}{
		{"exchange type", "rabbitmq: {url: 'amqp://h/', exchange_type: fan}", `broker.rabbitmq.exchange_type: must be one of`},
		{"negative prefetch", "rabbitmq: {url: 'amqp://h/', prefetch_count: -1}", `broker.rabbitmq.prefetch_count: must not be negative`},
		{"retention too short", "googlepubsub: {project_id: p, message_retention_duration: 5m}", `broker.googlepubsub.message_retention_duration: must be at least 10m (0 means Pub/Sub's default), not 5m`},
		{"ttl under a day", "googlepubsub: {project_id: p, expiration_ttl: 12h}", `broker.googlepubsub.expiration_ttl: must be at least 1d (0 means never expire), not 12h`},
		{"ttl under retention", "googlepubsub: {project_id: p, expiration_ttl: 1d, message_retention_duration: 2d}", `broker.googlepubsub.expiration_ttl: must be at least message_retention_duration`},
		{"retry max", "googlepubsub: {project_id: p, retry_max_backoff: 601s}", `broker.googlepubsub.retry_max_backoff: must be at most 10m (Pub/Sub's limit), not 10m1s`},
		{"retry swapped", "googlepubsub: {project_id: p, retry_min_backoff: 20s, retry_max_backoff: 10s}", `broker.googlepubsub.retry_min_backoff: must not exceed retry_max_backoff`},
		{"topic retention", "googlepubsub: {project_id: p, topic_retention_duration: 32d}", `broker.googlepubsub.topic_retention_duration: must be at most 31d (Pub/Sub's limit), not 32d`},
		{"dead-letter attempts", "googlepubsub: {project_id: p, dead_letter_max_attempts: 101}", `broker.googlepubsub.dead_letter_max_attempts: must be at most 100 (Pub/Sub's limit), not 101`},
		{"negative bytes", "googlepubsub: {project_id: p, max_outstanding_bytes: -1}", `broker.googlepubsub.max_outstanding_bytes: must not be negative`},
		{"bad days", "googlepubsub: {project_id: p, expiration_ttl: xd}", `broker.googlepubsub.expiration_ttl: must be a duration`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			typ := "rabbitmq"
			if strings.HasPrefix(tt.yaml, "googlepubsub") {
				typ = "googlepubsub"
			}
			path := writeTemp(t, "broker:\n  type: "+typ+"\n  "+tt.yaml+"\n")
			_, err := LoadBrokerConfig(path)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v; want %q", err, tt.want)
			}
		})
	}
}

// RabbitMQ's exchange defaults to the topic, as hyperfleet-broker names it,
// so a file without one loads.
func TestRabbitMQExchangeOptional(t *testing.T) {
	c, err := LoadBrokerConfig(writeTemp(t, "broker:\n  type: rabbitmq\n  rabbitmq: {url: 'amqp://h/'}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Settings.RabbitMQ.Exchange != "" || c.Settings.RabbitMQ.ExchangeType != "" {
		t.Errorf("rabbitmq = %+v; want exchange and type left to the consumer's defaults (the topic, fanout)", c.Settings.RabbitMQ)
	}
}

// Broker warnings are part of Config.Warnings, which validate prints and
// serve logs.
func TestConfigWarningsIncludeBroker(t *testing.T) {
	c := &Config{Broker: &BrokerConfig{Warnings: configfile.Errors{{File: "b.yaml", Path: "publisher", Msg: "is ignored"}}}}
	if w := c.Warnings(); len(w) != 1 || w[0].Path != "publisher" {
		t.Errorf("Warnings() = %v", w)
	}
}

// writeTemp writes a broker file of this test only and returns its path.
func writeTemp(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "broker.yaml")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// Environment overrides reach the optional keys (a *bool, a *Duration) as
// hyperfleet-broker's viper does (upper-cased path), and a nested
// broker.subscriber beside a top-level one is ignored with a warning.
func TestHyperFleetBrokerOptionalKeys(t *testing.T) {
	t.Setenv("BROKER_GOOGLEPUBSUB_CREATE_TOPIC_IF_MISSING", "false")
	t.Setenv("BROKER_GOOGLEPUBSUB_EXPIRATION_TTL", "2d")
	path := writeTemp(t, "broker:\n  type: googlepubsub\n  googlepubsub: {project_id: p}\n  subscriber: {parallelism: 1}\nsubscriber: {parallelism: 7}\n")
	c, err := LoadBrokerConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	p := c.Settings.GooglePubSub
	if p.CreateTopicIfMissing == nil || *p.CreateTopicIfMissing || p.ExpirationTTL == nil || p.ExpirationTTL.D() != 48*time.Hour {
		t.Errorf("env overrides not applied: %+v", p)
	}
	if c.Subscriber.Parallelism != 7 {
		t.Errorf("parallelism %d, want the top-level 7", c.Subscriber.Parallelism)
	}
	if len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0].Error(), "broker.subscriber: is ignored: the top-level subscriber block is set") {
		t.Errorf("warnings %v", c.Warnings)
	}
}
