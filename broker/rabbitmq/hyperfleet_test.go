package rabbitmq

import (
	"cmp"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/broker"
	"github.com/bundle-adapter/bundle-adapter/broker/brokertest"
)

// The options name and declare what hyperfleet-broker names and declares:
// a fanout exchange named after the topic unless told otherwise, the queue
// "<queue>-<subscription_id>" when queue is set.
func TestOptionsAsHyperFleetBroker(t *testing.T) {
	base := Options{URL: "amqp://h/", Topic: "clusters", SubscriptionID: "onprem"}
	tests := []struct {
		name                                string
		set                                 func(*Options)
		queue, exchange, kind, key, tagPref string
	}{
		{"defaults", func(*Options) {}, "clusters-onprem", "clusters", "fanout", "", "bundle-adapter-"},
		{"topic exchange binds every key", func(o *Options) { o.ExchangeType = "topic" }, "clusters-onprem", "clusters", "topic", "#", "bundle-adapter-"},
		{"queue override", func(o *Options) { o.Queue = "hf" }, "hf-onprem", "clusters", "fanout", "", "bundle-adapter-"},
		{"routing key and exchange", func(o *Options) { o.Exchange, o.ExchangeType, o.RoutingKey = "ev", "direct", "k" }, "clusters-onprem", "ev", "direct", "k", "bundle-adapter-"},
		{"consumer tag", func(o *Options) { o.ConsumerTag = "adapter-a" }, "clusters-onprem", "clusters", "fanout", "", "adapter-a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := base
			tt.set(&o)
			o = o.withDefaults()
			if o.QueueName() != tt.queue || o.DeadLetterQueueName() != tt.queue+".dead-letter" || o.Exchange != tt.exchange ||
				o.ExchangeType != tt.kind || o.bindingKey(o.ExchangeType) != tt.key || !strings.HasPrefix(o.consumerTag(), tt.tagPref) {
				t.Errorf("queue %s, exchange %s (%s), key %q, tag %s", o.QueueName(), o.Exchange, o.ExchangeType, o.bindingKey(o.ExchangeType), o.consumerTag())
			}
		})
	}
}

// A message without an AMQP message id, as Sentinel sends it, is named by
// its _watermill_message_uuid header (the CloudEvent id), so dead-letter
// reasons and logs name the event.
func TestMessageIDNamesTheEvent(t *testing.T) {
	f := sentinelFixture(t)
	tests := []struct {
		name string
		d    amqp.Delivery
		want string
	}{
		{"sentinel", amqp.Delivery{Headers: table(f.Headers), DeliveryTag: 7, Body: []byte(f.Body)}, sentinelEventID(t, f)},
		{"message id wins", amqp.Delivery{MessageId: "m-1", Headers: table(f.Headers), DeliveryTag: 7}, "m-1"},
		{"neither", amqp.Delivery{DeliveryTag: 7}, "delivery-7"},
		{"empty header", amqp.Delivery{Headers: amqp.Table{WatermillUUIDHeader: ""}, DeliveryTag: 7}, "delivery-7"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := (&Message{d: tt.d}).ID(); got != tt.want {
				t.Errorf("ID() = %q, want %q", got, tt.want)
			}
		})
	}
}

// An exchange someone else declared with another type (Sentinel through
// hyperfleet-broker declares fanout) is used as it is declared, with a
// warning naming both types: Sentinel's message is processed by the
// dispatcher and acked.
func TestExchangeOfAnotherTypeUsedAsDeclared(t *testing.T) {
	f := sentinelFixture(t)
	tests := []struct{ declared, ours string }{
		{"fanout", "topic"},
		{"topic", ""}, // ours defaults to fanout
		{"direct", "fanout"},
	}
	for _, tt := range tests {
		t.Run(tt.declared+"-vs-"+tt.ours, func(t *testing.T) {
			o := testOptions(t, "foreign")
			o.ExchangeType = tt.ours
			if err := adminChannel(t).ExchangeDeclare(o.Topic, tt.declared, true, false, false, false, nil); err != nil {
				t.Fatal(err)
			}
			var logs syncBuffer
			o.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
			processed := make(chan adapter.Event, 1)
			settled := make(chan string, 1)
			d, err := broker.NewDispatcher(broker.DispatcherOptions{
				Decode: broker.Decode, Logger: o.Logger,
				Process: func(_ context.Context, ev adapter.Event) *adapter.Result {
					processed <- ev
					return &adapter.Result{Event: ev, ExecutionStatus: adapter.ExecutionSuccess}
				},
				Hooks: broker.Hooks{Processed: func(_ *adapter.Result, _ time.Duration, outcome string) { settled <- outcome }},
			})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go d.Run(ctx)
			c := New(o)
			consumed := make(chan error, 1)
			go func() { consumed <- c.Consume(ctx, d.Handle) }()
			waitFor(t, "consumer ready", c.Ready)
			publishRaw(t, o.Topic, f.RoutingKey, amqp.Publishing{Headers: table(f.Headers), DeliveryMode: f.DeliveryMode, Body: []byte(f.Body)})
			select {
			case ev := <-processed:
				if ev.ID != sentinelEventID(t, f) {
					t.Errorf("processed event %s, want the fixture's", ev.ID)
				}
			case err := <-consumed:
				t.Fatalf("Consume returned %v", err)
			case <-time.After(10 * time.Second):
				t.Fatal("the Sentinel message was not processed")
			}
			if outcome := <-settled; outcome != broker.SettledAcked {
				t.Errorf("outcome %s, want %s", outcome, broker.SettledAcked)
			}
			waitFor(t, "the message acked", func() bool { return queueDepth(t, o.withDefaults().QueueName()) == 0 })
			cancel()
			if err := <-consumed; err != nil {
				t.Errorf("Consume returned %v", err)
			}
			ours := cmp.Or(tt.ours, "fanout")
			if w := logs.String(); !strings.Contains(w, "exchange exists with another type") || !strings.Contains(w, "declared="+tt.declared) || !strings.Contains(w, "configured="+ours) {
				t.Errorf("warning does not say what differs:\n%s", w)
			}
		})
	}
}

func sentinelFixture(t *testing.T) brokertest.SentinelMessage {
	t.Helper()
	f, err := brokertest.LoadSentinel(brokertest.SentinelFixture)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func sentinelEventID(t *testing.T, f brokertest.SentinelMessage) string {
	t.Helper()
	var ce struct{ ID string }
	if err := json.Unmarshal([]byte(f.Body), &ce); err != nil || ce.ID == "" {
		t.Fatalf("fixture body: %v", err)
	}
	return ce.ID
}

// Sentinel's message, dead-lettered, is named by its CloudEvent id in the
// consumer's log, and its copy keeps the header that names it.
func TestDeadLetteredSentinelMessageNamesTheEvent(t *testing.T) {
	f := sentinelFixture(t)
	o := testOptions(t, "sentinel-dl")
	var logs syncBuffer
	o.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	r := start(t, o)
	publishRaw(t, o.Topic, f.RoutingKey, amqp.Publishing{Headers: table(f.Headers), DeliveryMode: f.DeliveryMode, Body: []byte(f.Body)})
	if err := r.receive(t).DeadLetter(context.Background(), "invalid: test"); err != nil {
		t.Fatal(err)
	}
	id := sentinelEventID(t, f)
	if got := logs.String(); !strings.Contains(got, "message_id="+id+" queue=") {
		t.Errorf("dead-letter log does not name the CloudEvent id %s:\n%s", id, got)
	}
	d := getOne(t, o.withDefaults().DeadLetterQueueName())
	if got, _ := scalarString(d.Headers[WatermillUUIDHeader]); got != id {
		t.Errorf("dead-letter copy header %s = %q, want %s", WatermillUUIDHeader, got, id)
	}
}
