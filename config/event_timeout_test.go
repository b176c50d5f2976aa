package config

import (
	"strings"
	"testing"
	"time"
)

// broker.subscriber.event_timeout (SUBSCRIBER_EVENT_TIMEOUT) is the deadline
// of one event's whole run: default 5m, within [1s, 30m] (RabbitMQ closes
// the channel of a delivery unacknowledged for 30m).
func TestSubscriberEventTimeout(t *testing.T) {
	cases := []struct {
		env  string
		want time.Duration
		err  string
	}{
		{"", 5 * time.Minute, ""},
		{"90s", 90 * time.Second, ""},
		{"1s", time.Second, ""},
		{"30m", 30 * time.Minute, ""},
		{"999ms", 0, "subscriber.event_timeout: must be at least 1s, not 999ms"},
		{"31m", 0, "subscriber.event_timeout: must be at most 30m (config.MaxEventTimeout"},
		{"-1s", 0, "subscriber.event_timeout"},
	}
	for _, c := range cases {
		t.Run(c.env, func(t *testing.T) {
			if c.env != "" {
				t.Setenv("SUBSCRIBER_EVENT_TIMEOUT", c.env)
			}
			cfg, err := LoadBrokerConfig("examples/onprem/broker.yaml")
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := cfg.Subscriber.EventTimeout.D(); got != c.want {
				t.Errorf("event_timeout %v, want %v", got, c.want)
			}
		})
	}
}
