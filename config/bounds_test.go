package config

import (
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// Findings 4, 5 and 14 of issue 28: a parallelism, a prefetch count or an
// AMQP name past its bound was accepted by validate, and serve then ran out
// of memory, narrowed the prefetch to 16 bits (65536 became 0, unlimited)
// or reconnected forever. Each is refused at load, from the file and from
// the environment, naming the key or the variable and the bound.
func TestBrokerBoundsRefused(t *testing.T) {
	long := strings.Repeat("q", 256)
	multiByte := strings.Repeat("é", 128) // 128 characters, 256 bytes
	tests := []struct {
		name, yaml string
		env        map[string]string
		want       string
	}{
		{"parallelism 10^12", "subscriber: {parallelism: 1000000000000}", nil,
			"broker.yaml:4: subscriber.parallelism: must be at most 1024 (config.MaxParallelism: each worker is a goroutine holding an event), not 1000000000000"},
		{"parallelism 10^12 from env", "", map[string]string{"SUBSCRIBER_PARALLELISM": "1000000000000"},
			"broker.yaml: subscriber.parallelism: must be at most 1024 (config.MaxParallelism: each worker is a goroutine holding an event), not 1000000000000 (set by env SUBSCRIBER_PARALLELISM)"},
		{"parallelism 1025", "subscriber: {parallelism: 1025}", nil, "subscriber.parallelism: must be at most 1024"},
		{"parallelism 0", "subscriber: {parallelism: 0}", nil, "subscriber.parallelism: must be at least 1, not 0"},
		{"nested parallelism 10^12", "  subscriber: {parallelism: 1000000000000}", nil, "subscriber.parallelism: must be at most 1024"},
		{"prefetch 65536", "  rabbitmq: {prefetch_count: 65536}", nil,
			"broker.yaml:3: broker.rabbitmq.prefetch_count: must be at most 65535 (AMQP's prefetch count is 16 bits), not 65536"},
		{"prefetch 70000 from env", "", map[string]string{"BROKER_RABBITMQ_PREFETCH_COUNT": "70000"},
			"broker.rabbitmq.prefetch_count: must be at most 65535 (AMQP's prefetch count is 16 bits), not 70000 (set by env BROKER_RABBITMQ_PREFETCH_COUNT)"},
		{"prefetch negative", "  rabbitmq: {prefetch_count: -1}", nil, "broker.rabbitmq.prefetch_count: must not be negative (0 means 10), not -1"},
		{"queue 256 bytes", "  rabbitmq: {queue: " + long + "}", nil,
			"broker.rabbitmq.queue: must be at most 255 bytes (AMQP names are short strings of at most 255 bytes), not 256 bytes"},
		{"exchange 128 characters, 256 bytes", "  rabbitmq: {exchange: " + multiByte + "}", nil,
			"broker.rabbitmq.exchange: must be at most 255 bytes (AMQP names are short strings of at most 255 bytes), not 256 bytes"},
		{"consumer tag 256 bytes from env", "", map[string]string{"BROKER_RABBITMQ_CONSUMER_TAG": long},
			"broker.rabbitmq.consumer_tag: must be at most 255 bytes (AMQP names are short strings of at most 255 bytes), not 256 bytes (set by env BROKER_RABBITMQ_CONSUMER_TAG)"},
		{"routing key 256 bytes", "  rabbitmq: {routing_key: " + long + "}", nil, "broker.rabbitmq.routing_key: must be at most 255 bytes"},
		{"max deliveries 10^9", "  delivery: {max_deliveries: 1000000000}", nil, "broker.delivery.max_deliveries: must be at most 100"},
		{"shutdown timeout 1000h", "subscriber: {shutdown_timeout: 1000h}", nil, "subscriber.shutdown_timeout: must be at most 1h (a pod's termination waits no longer), not 1000h"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			y := "broker:\n  type: rabbitmq\n  rabbitmq: {url: 'amqp://h/'}\n"
			if strings.HasPrefix(tt.yaml, "  rabbitmq:") {
				y = "broker:\n  type: rabbitmq\n" + strings.Replace(tt.yaml, "{", "{url: 'amqp://h/', ", 1) + "\n"
			} else if strings.HasPrefix(tt.yaml, "  ") {
				y += tt.yaml + "\n"
			} else if tt.yaml != "" {
				y += tt.yaml + "\n"
			}
			path := writeTemp(t, y)
			_, err := LoadBrokerConfig(path)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v\nwant it to contain %q", err, tt.want)
			}
		})
	}
}

// Values at their bound load: 255 bytes, 65535, 1024.
func TestBrokerBoundsAccepted(t *testing.T) {
	name255 := strings.Repeat("é", 127) + "q" // 255 bytes
	y := "broker:\n  type: rabbitmq\n  rabbitmq: {url: 'amqp://h/', prefetch_count: 65535, queue: " + name255 +
		", exchange: " + name255 + ", consumer_tag: " + name255 + ", routing_key: " + name255 + "}\nsubscriber: {parallelism: 1024}\n"
	if _, err := LoadBrokerConfig(writeTemp(t, y)); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SUBSCRIBER_PARALLELISM", "1")
	if _, err := LoadBrokerConfig(writeTemp(t, y)); err != nil {
		t.Fatal(err)
	}
}

// The adapter config's bounds hold from the file, the environment and the
// flags alike; an error about an overridden leaf names what set it.
func TestAdapterBoundsRefused(t *testing.T) {
	tests := []struct {
		name  string
		env   map[string]string
		flags []string
		want  string
	}{
		{"topic 256 bytes from env", map[string]string{"HYPERFLEET_BROKER_TOPIC": strings.Repeat("t", 256)}, nil,
			"clients.broker.topic: must be at most 255 bytes (AMQP names are short strings of at most 255 bytes; Pub/Sub ids are at most 255 characters), not 256 bytes (set by env HYPERFLEET_BROKER_TOPIC)"},
		{"subscription id 300 bytes from a flag", nil, []string{"--broker-subscription-id=" + strings.Repeat("s", 300)},
			"clients.broker.subscription_id: must be at most 255 bytes"},
		{"flag beats env and is named", map[string]string{"HYPERFLEET_MAESTRO_RETRY_ATTEMPTS": "2"}, []string{"--maestro-retry-attempts=21"},
			"clients.maestro.retry_attempts: must be at most 20 (config.MaxRetryAttempts: the broker redelivers anyway), not 21 (set by flag --maestro-retry-attempts)"},
		{"maestro retry attempts negative (serve's client refused it)", map[string]string{"HYPERFLEET_MAESTRO_RETRY_ATTEMPTS": "-1"}, nil,
			"clients.maestro.retry_attempts: must not be negative (0 means 3), not -1"},
		{"kubernetes qps +Inf", map[string]string{"HYPERFLEET_KUBERNETES_QPS": "+Inf"}, nil, "clients.kubernetes.qps: must be at most 10000"},
		{"kubernetes qps NaN", map[string]string{"HYPERFLEET_KUBERNETES_QPS": "NaN"}, nil, "clients.kubernetes.qps: must be a number, not NaN"},
		{"field manager 129 bytes", map[string]string{"HYPERFLEET_KUBERNETES_FIELD_MANAGER": strings.Repeat("f", 129)}, nil,
			"clients.kubernetes.field_manager: must be at most 128 bytes"},
		{"api timeout 1000h", map[string]string{"HYPERFLEET_API_TIMEOUT": "1000h"}, nil, "clients.hyperfleet_api.timeout: must be at most 10m (one request waits no longer), not 1000h"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
			RegisterAdapterFlags(fs)
			if err := fs.Parse(tt.flags); err != nil {
				t.Fatal(err)
			}
			_, err := LoadAdapterConfig("examples/onprem/adapter-config.yaml", fs)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v\nwant it to contain %q", err, tt.want)
			}
		})
	}
}
