package rabbitmq

import (
	"strings"
	"testing"
)

// Finding 14 of issue 28: a name past AMQP's 255 bytes (the queue with its
// dead-letter suffix, the exchange, the consumer tag, the routing key) or
// a prefetch past 16 bits made Consume reconnect forever (or narrowed the
// prefetch to 0, unlimited). Check refuses them before anything connects,
// and Consume returns the same error.
func TestCheckRefusesWhatAMQPCannotCarry(t *testing.T) {
	base := Options{URL: "amqp://h/", Topic: "t", SubscriptionID: "s"}
	tests := []struct {
		name string
		edit func(*Options)
		want string // "" means valid
	}{
		{"defaults", func(*Options) {}, ""},
		{"queue at 243 bytes: dead-letter queue at 255", func(o *Options) { o.Queue = strings.Repeat("q", 241) }, ""},
		{"queue at 244 bytes: dead-letter queue at 256", func(o *Options) { o.Queue = strings.Repeat("q", 242) },
			`dead-letter queue name "` + strings.Repeat("q", 242) + `-s.dead-letter" is 256 bytes: AMQP names are at most 255 bytes`},
		{"topic multi-byte", func(o *Options) { o.Topic = strings.Repeat("é", 125) }, "is 264 bytes"},
		{"exchange 256 bytes", func(o *Options) { o.Exchange = strings.Repeat("x", 256) }, "exchange name is 256 bytes"},
		{"exchange defaults to a 256-byte topic", func(o *Options) { o.Topic = strings.Repeat("x", 256) }, "exchange name is 256 bytes"},
		{"consumer tag 256 bytes", func(o *Options) { o.ConsumerTag = strings.Repeat("c", 256) }, "consumer tag is 256 bytes"},
		{"routing key 256 bytes", func(o *Options) { o.RoutingKey = strings.Repeat("r", 256) }, "routing key is 256 bytes"},
		{"prefetch 65536", func(o *Options) { o.Prefetch = 65536 }, "prefetch 65536 is above AMQP's 65535"},
		{"prefetch 65535", func(o *Options) { o.Prefetch = 65535 }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := base
			tt.edit(&o)
			err := o.Check()
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("Check() = %v; want nil", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("Check() = %v; want it to contain %q", err, tt.want)
			}
		})
	}
}
