package main

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/bundle-adapter/bundle-adapter/broker/rabbitmq"
	"github.com/bundle-adapter/bundle-adapter/config"
)

const hfBroker = "../../config/testdata/hyperfleet/"

func loadWithBroker(t *testing.T, brokerFile string) *config.Config {
	t.Helper()
	cfg, err := config.Load(config.Files{Adapter: ex + "onprem/adapter-config.yaml", Task: ex + "onprem/task-config.yaml", Broker: hfBroker + brokerFile}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// Every RabbitMQ key of a HyperFleet broker file reaches the consumer.
func TestRabbitMQKeysReachTheConsumer(t *testing.T) {
	tests := []struct {
		file string
		want rabbitmq.Options
	}{
		{"broker-rabbitmq-chart.yaml", rabbitmq.Options{Exchange: "", ExchangeType: "topic", Queue: "", Prefetch: 10}},
		{"broker-rabbitmq-full.yaml", rabbitmq.Options{Exchange: "hf-events", ExchangeType: "direct", Queue: "hf-adapter", RoutingKey: "clusters", ConsumerTag: "adapter-a", Prefetch: 3}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			o := rabbitmqOptions(loadWithBroker(t, tt.file), slog.New(slog.DiscardHandler))
			if o.Exchange != tt.want.Exchange || o.ExchangeType != tt.want.ExchangeType || o.Queue != tt.want.Queue ||
				o.RoutingKey != tt.want.RoutingKey || o.ConsumerTag != tt.want.ConsumerTag || o.Prefetch != tt.want.Prefetch || o.Topic == "" {
				t.Errorf("options %+v", o)
			}
		})
	}
}

// Every Pub/Sub key of a HyperFleet broker file reaches the consumer.
func TestPubSubKeysReachTheConsumer(t *testing.T) {
	full := pubsubOptions(loadWithBroker(t, "broker-googlepubsub-full.yaml"), slog.New(slog.DiscardHandler))
	if full.MessageRetention != 24*time.Hour || full.ExpirationTTL == nil || *full.ExpirationTTL != 72*time.Hour || !full.EnableMessageOrdering ||
		full.MinBackoff != 5*time.Second || full.MaxBackoff != 300*time.Second || full.TopicRetention != 12*time.Hour ||
		full.MaxOutstandingBytes != 52428800 || full.NumGoroutines != 4 || full.MaxOutstandingMessages != 200 ||
		full.DoNotCreateTopicIfMissing || full.DoNotCreateSubscriptionIfMissing || full.MaxDeliveries != 7 || full.AckDeadline != 90*time.Second {
		t.Errorf("full: %+v", full)
	}
	chart := pubsubOptions(loadWithBroker(t, "broker-googlepubsub-chart.yaml"), slog.New(slog.DiscardHandler))
	if !chart.DoNotCreateTopicIfMissing || !chart.DoNotCreateSubscriptionIfMissing || chart.DeadLetterTopic != "hf-clusters-dead" ||
		chart.ExpirationTTL == nil || *chart.ExpirationTTL != 0 || chart.MinBackoff != 10*time.Second || chart.MaxBackoff != time.Minute {
		t.Errorf("chart: %+v", chart)
	}
	// The adapter config's topic wins over the broker file's.
	if chart.Topic == "hf-clusters" {
		t.Errorf("topic %q: the adapter config's clients.broker.topic must win", chart.Topic)
	}
	cfg := loadWithBroker(t, "broker-googlepubsub-chart.yaml")
	cfg.Adapter.Clients.Broker.Topic = ""
	if o := pubsubOptions(cfg, slog.New(slog.DiscardHandler)); o.Topic != "hf-clusters" {
		t.Errorf("topic %q, want the broker file's when the adapter config names none", o.Topic)
	}
}

// log_config logs the broker config in effect, password redacted.
func TestLogConfigLogsRedactedBrokerConfig(t *testing.T) {
	for _, on := range []bool{true, false} {
		cfg := loadWithBroker(t, "broker-rabbitmq-full.yaml")
		cfg.Broker.LogConfig = on
		var logs bytes.Buffer
		log := slog.New(slog.NewTextHandler(&logs, nil))
		plan := &startPlan{}
		if err := plan.planConsumer(cfg, log); err != nil {
			t.Fatal(err)
		}
		_, closeFn, err := newConsumer(context.Background(), cfg, plan, log)
		if err != nil {
			t.Fatal(err)
		}
		closeFn()
		got := logs.String()
		if strings.Contains(got, "broker config") != on || strings.Contains(got, "sentinel:pw") {
			t.Errorf("log_config %v logged:\n%s", on, got)
		}
	}
}
