package rabbitmq

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/bundle-adapter/bundle-adapter/broker"
)

const event = `{"specversion":"1.0","id":"e-1","type":"com.redhat.hyperfleet.cluster.reconcile","source":"hyperfleet-sentinel","data":{"id":"c-1","kind":"Cluster","generation":1}}`

// A connection closed by the broker is survived: Ready goes false then
// true, the message outstanding on the dead connection cannot be settled and
// is redelivered, later messages are consumed.
func TestSurvivesForcedConnectionClose(t *testing.T) {
	o := testOptions(t, "reconnect")
	o.ConnectionName = "bundle-adapter-test " + o.Topic
	r := start(t, o)
	publish(t, o, "before", nil)
	stale := r.receive(t)
	closeConnection(t, o.ConnectionName)
	waitFor(t, "Ready false", func() bool { return !r.Ready() })
	err := stale.Ack(context.Background())
	if !errors.Is(err, ErrConnectionLost) {
		t.Errorf("Ack on the closed connection = %v, want ErrConnectionLost", err)
	}
	waitFor(t, "Ready true again", r.Ready)
	again := r.receive(t)
	if again.ID() != stale.ID() || again.Deliveries() != 2 {
		t.Errorf("redelivered %s with deliveries %d, want %s with 2", again.ID(), again.Deliveries(), stale.ID())
	}
	publish(t, o, "after", nil)
	later := r.receive(t)
	for _, m := range []*Message{again, later} {
		if err := m.Ack(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if string(later.Body()) != "after" {
		t.Errorf("later message body %q", later.Body())
	}
}

// Retry and DeadLetter of a message from a closed connection publish
// nothing: RabbitMQ redelivers the original, so a copy would duplicate it.
func TestSettleOnClosedConnectionPublishesNothing(t *testing.T) {
	o := testOptions(t, "closed")
	o.ConnectionName = "bundle-adapter-test " + o.Topic
	r := start(t, o)
	publish(t, o, "a", nil)
	publish(t, o, "b", nil)
	m1, m2 := r.receive(t), r.receive(t)
	closeConnection(t, o.ConnectionName)
	waitFor(t, "Ready false", func() bool { return !r.Ready() })
	if err := m1.Retry(context.Background(), time.Second); !errors.Is(err, ErrConnectionLost) {
		t.Errorf("Retry = %v, want ErrConnectionLost", err)
	}
	if err := m2.DeadLetter(context.Background(), "x"); !errors.Is(err, ErrConnectionLost) {
		t.Errorf("DeadLetter = %v, want ErrConnectionLost", err)
	}
	for range 2 {
		if err := r.receive(t).Ack(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if n := queueDepth(t, o.DeadLetterQueueName()); n != 0 {
		t.Errorf("dead-letter queue holds %d messages, want 0", n)
	}
	r.ExpectNone(t, 1500*time.Millisecond)
}

// Refused credentials are permanent: Consume returns instead of retrying.
func TestConsumeReturnsOnRefusedCredentials(t *testing.T) {
	o := testOptions(t, "auth")
	o.URL = "amqp://guest:wrong-password@127.0.0.1:5672/"
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	err := New(o).Consume(ctx, func(broker.Message) {})
	if err == nil || ctx.Err() != nil {
		t.Fatalf("Consume = %v (ctx %v), want a permanent error", err, ctx.Err())
	}
	if strings.Contains(err.Error(), "wrong-password") {
		t.Errorf("error leaks the password: %v", err)
	}
}

func TestConsumeRejectsInvalidOptions(t *testing.T) {
	err := New(Options{URL: "http://x"}).Consume(context.Background(), func(broker.Message) {})
	for _, want := range []string{"url", "topic is required", "subscription id is required"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Consume = %v, want it to mention %q", err, want)
		}
	}
}

// Every delay has its own queue: a short delay is never held up behind a
// longer one retried before it.
func TestShortRetryOvertakesLongOne(t *testing.T) {
	o := testOptions(t, "overtake")
	r := start(t, o)
	publish(t, o, "long", nil)
	publish(t, o, "short", nil)
	long, short := r.receive(t), r.receive(t)
	if err := long.Retry(context.Background(), 4*time.Second); err != nil {
		t.Fatal(err)
	}
	if err := short.Retry(context.Background(), time.Second); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"short", "long"} {
		m := r.receive(t)
		if string(m.Body()) != want {
			t.Errorf("redelivered %q, want %q", m.Body(), want)
		}
		if err := m.Ack(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
}

// A copy that cannot be stored leaves the original in the queue: it is
// requeued and redelivered, never lost.
func TestFailedCopyRequeuesOriginal(t *testing.T) {
	o := testOptions(t, "copyfail")
	r := start(t, o)
	publish(t, o, event, nil)
	m := r.receive(t)
	unroutable := func(*amqp.Channel) (string, error) { return "no-such-queue-" + o.Topic, nil }
	err := m.republish(context.Background(), "retry", m.copyFor(2, nil), unroutable)
	if !errors.Is(err, ErrUnroutable) {
		t.Fatalf("republish = %v, want ErrUnroutable", err)
	}
	again := r.receive(t)
	if again.ID() != m.ID() || again.Deliveries() != 2 {
		t.Errorf("redelivered %s with deliveries %d", again.ID(), again.Deliveries())
	}
	if err := again.Ack(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// A deleted queue cancels the consumer; Consume reconnects and declares it
// again.
func TestRedeclaresDeletedQueue(t *testing.T) {
	o := testOptions(t, "deleted")
	r := start(t, o)
	if _, err := adminChannel(t).QueueDelete(o.QueueName(), false, false, false); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "Ready false", func() bool { return !r.Ready() })
	waitFor(t, "Ready true again", r.Ready)
	publish(t, o, event, nil)
	if err := r.receive(t).Ack(context.Background()); err != nil {
		t.Fatal(err)
	}
}
