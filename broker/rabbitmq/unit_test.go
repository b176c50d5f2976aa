package rabbitmq

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

func TestRetryTTL(t *testing.T) {
	for _, tt := range []struct{ delay, want time.Duration }{
		{0, time.Second},
		{300 * time.Millisecond, time.Second},
		{time.Second, time.Second},
		{1001 * time.Millisecond, 2 * time.Second},
		{3 * time.Second, 4 * time.Second},
		{4 * time.Second, 4 * time.Second},
		{time.Minute, 64 * time.Second},
		{100 * time.Hour, maxRetryTTL},
	} {
		if got := retryTTL(tt.delay); got != tt.want {
			t.Errorf("retryTTL(%v) = %v, want %v", tt.delay, got, tt.want)
		}
	}
}

func TestDeliveries(t *testing.T) {
	for _, tt := range []struct {
		name        string
		headers     amqp.Table
		redelivered bool
		want        int
	}{
		{"first delivery", nil, false, 1},
		{"redelivered by the broker", nil, true, 2},
		{"retried twice", amqp.Table{DeliveriesHeader: int64(3)}, false, 3},
		{"retried, then redelivered", amqp.Table{DeliveriesHeader: int32(3)}, true, 4},
		{"header as string", amqp.Table{DeliveriesHeader: "2"}, false, 2},
		{"garbage header", amqp.Table{DeliveriesHeader: "many"}, false, 1},
		{"quorum queue count", amqp.Table{DeliveriesHeader: int64(2), quorumDeliveryCount: int64(3)}, true, 5},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := &Message{d: amqp.Delivery{Headers: tt.headers, Redelivered: tt.redelivered}}
			if got := m.Deliveries(); got != tt.want {
				t.Errorf("Deliveries = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestAttributesAndCopy(t *testing.T) {
	stamp := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	m := &Message{d: amqp.Delivery{
		MessageId: "m-1", ContentType: "application/json", UserId: "guest",
		Headers: amqp.Table{
			"ce-id": "e-1", "n": int32(7), "ok": true, "at": stamp,
			"x-death": []any{amqp.Table{"count": int64(1)}}, "x-first-death-queue": "q.retry.1s",
		},
		Body: []byte("{}"),
	}}
	want := map[string]string{"ce-id": "e-1", "n": "7", "ok": "true", "at": "2026-01-02T03:04:05Z",
		"x-first-death-queue": "q.retry.1s", "content-type": "application/json"}
	if got := m.Attributes(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Attributes = %v, want %v", got, want)
	}
	c := m.copyFor(3, amqp.Table{"x-dead-letter-reason": "r"})
	if c.MessageId != "m-1" || c.ContentType != "application/json" || c.UserId != "" || c.DeliveryMode != amqp.Persistent ||
		c.Headers[DeliveriesHeader] != int64(3) || c.Headers["x-dead-letter-reason"] != "r" || c.Headers["ce-id"] != "e-1" {
		t.Errorf("copy = %+v", c)
	}
	for _, k := range []string{"x-death", "x-first-death-queue"} {
		if _, ok := c.Headers[k]; ok {
			t.Errorf("copy keeps broker header %s", k)
		}
	}
}

func TestOptions(t *testing.T) {
	o := Options{URL: "amqp://u:secret@h:5672/v", Topic: "clusters", SubscriptionID: "onprem"}.withDefaults()
	if o.QueueName() != "clusters-onprem" || o.DeadLetterQueueName() != "clusters-onprem.dead-letter" ||
		o.retryQueueName(4*time.Second) != "clusters-onprem.retry.4s" {
		t.Errorf("names %s %s %s", o.QueueName(), o.DeadLetterQueueName(), o.retryQueueName(4*time.Second))
	}
	if o.Exchange != "clusters" || o.ExchangeType != "fanout" || o.bindingKey(o.ExchangeType) != "" || o.Prefetch != 10 {
		t.Errorf("defaults %+v", o)
	}
	if got := redactURL(o.URL); strings.Contains(got, "secret") || !strings.Contains(got, "u:xxxxx@h:5672") {
		t.Errorf("redactURL = %s", got)
	}
}

func TestPermanent(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want bool
	}{
		{amqp.ErrCredentials, true},
		{fmt.Errorf("declare: %w", &amqp.Error{Code: amqp.PreconditionFailed}), true},
		{&amqp.Error{Code: amqp.ConnectionForced}, false},
		{errors.New("dial tcp: connection refused"), false},
	} {
		if got := permanent(tt.err); got != tt.want {
			t.Errorf("permanent(%v) = %v", tt.err, got)
		}
	}
}

// An AMQP URL that does not parse never shows its password in the
// options error (url.Parse puts the whole URL in its errors).
func TestUnparsableURLNotEchoed(t *testing.T) {
	for _, raw := range []string{"amqp://admin:S3cr%t!Pass@h/", "amqp://admin:S3cr t@h/", "amqp://admin:S3cr\x01t@h/"} {
		err := Options{URL: raw, Topic: "t", SubscriptionID: "s"}.withDefaults().validate()
		if err == nil || strings.Contains(err.Error(), "S3cr") {
			t.Errorf("validate(%q) = %v; want an error without the password", raw, err)
		}
	}
}
