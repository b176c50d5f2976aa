package rabbitmq

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/bundle-adapter/bundle-adapter/broker"
)

const event = `{"specversion":"1.0","id":"e-1","type":"com.redhat.hyperfleet.cluster.reconcile","source":"hyperfleet-sentinel","data":{"id":"c-1","kind":"Cluster","generation":1}}`

func TestAckRemovesMessage(t *testing.T) {
	o := testOptions(t, "ack")
	r := start(t, o)
	publish(t, o, event, map[string]any{"ce-traceparent": "00-abc"})
	m := r.receive(t)
	if string(m.Body()) != event || m.Deliveries() != 1 || m.Attributes()["ce-traceparent"] != "00-abc" {
		t.Errorf("got body %q deliveries %d attributes %v", m.Body(), m.Deliveries(), m.Attributes())
	}
	if err := m.Ack(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := m.Ack(context.Background()); !errors.Is(err, ErrSettled) {
		t.Errorf("second Ack = %v, want ErrSettled", err)
	}
	r.stop(t) // an unacked message would go back to the queue now
	if n := queueDepth(t, o.QueueName()); n != 0 {
		t.Errorf("queue holds %d messages after ack, want 0", n)
	}
}

// Retry redelivers the same message, not before the delay, counting the
// delivery; delays round up to the delay queue's TTL.
func TestRetryRedeliversAfterDelay(t *testing.T) {
	o := testOptions(t, "retry")
	r := start(t, o)
	publish(t, o, event, map[string]any{"ce-traceparent": "00-abc"})
	m := r.receive(t)
	id := m.ID()
	for i, delay := range []time.Duration{time.Second, 1500 * time.Millisecond} {
		begin := time.Now()
		if err := m.Retry(context.Background(), delay); err != nil {
			t.Fatal(err)
		}
		m = r.receive(t)
		if waited := time.Since(begin); waited < delay {
			t.Errorf("redelivered after %v, want at least %v", waited, delay)
		}
		if m.Deliveries() != i+2 || m.ID() != id || string(m.Body()) != event || m.Attributes()["ce-traceparent"] != "00-abc" {
			t.Errorf("redelivery %d: id %s deliveries %d body %q attributes %v", i+1, m.ID(), m.Deliveries(), m.Body(), m.Attributes())
		}
	}
	if err := m.Ack(context.Background()); err != nil {
		t.Fatal(err)
	}
	r.expectNone(t, 300*time.Millisecond)
}

func TestDeadLetterStoresReason(t *testing.T) {
	o := testOptions(t, "dead")
	r := start(t, o)
	publish(t, o, "not json", map[string]any{"ce-id": "x-1"})
	m := r.receive(t)
	if err := m.DeadLetter(context.Background(), "malformed: not JSON"); err != nil {
		t.Fatal(err)
	}
	d := getOne(t, o.DeadLetterQueueName())
	if string(d.Body) != "not json" || d.MessageId != m.ID() || d.Headers[broker.ReasonAttribute] != "malformed: not JSON" ||
		d.Headers["ce-id"] != "x-1" || d.Headers[DeliveriesHeader] != int64(1) {
		t.Errorf("dead-lettered: body %q id %s headers %v", d.Body, d.MessageId, d.Headers)
	}
	r.expectNone(t, 300*time.Millisecond)
}

func TestReleaseRedelivers(t *testing.T) {
	o := testOptions(t, "release")
	r := start(t, o)
	publish(t, o, event, nil)
	m := r.receive(t)
	if err := m.Release(context.Background()); err != nil {
		t.Fatal(err)
	}
	again := r.receive(t)
	if again.ID() != m.ID() || again.Deliveries() != 2 {
		t.Errorf("released message came back as %s with deliveries %d", again.ID(), again.Deliveries())
	}
	if err := again.Ack(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// Replicas sharing a subscription id compete: each message reaches one.
func TestSameSubscriptionCompetes(t *testing.T) {
	o := testOptions(t, "shared")
	a, b := start(t, o), start(t, o)
	const n = 20
	for i := range n {
		publish(t, o, fmt.Sprint(i), nil)
	}
	seen := map[string]string{}
	counts := map[string]int{}
	for len(seen) < n {
		var m *Message
		var who string
		select {
		case m = <-a.msgs:
			who = "a"
		case m = <-b.msgs:
			who = "b"
		case <-time.After(10 * time.Second):
			t.Fatalf("got %d of %d messages", len(seen), n)
		}
		if prev, dup := seen[m.ID()]; dup {
			t.Errorf("message %s delivered to %s and %s", m.ID(), prev, who)
		}
		seen[m.ID()] = who
		counts[who]++
		if err := m.Ack(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if counts["a"] == 0 || counts["b"] == 0 {
		t.Errorf("deliveries per replica %v: want both to get some", counts)
	}
	a.expectNone(t, 200*time.Millisecond)
	b.expectNone(t, 0)
}

// Different subscription ids have their own queues: each gets every event.
func TestSubscriptionsEachGetEveryEvent(t *testing.T) {
	o1 := testOptions(t, "one")
	o2 := o1
	o2.SubscriptionID = "two"
	t.Cleanup(func() { deleteTopology(t, o2) })
	c1, c2 := start(t, o1), start(t, o2)
	publish(t, o1, event, nil)
	for _, c := range []*running{c1, c2} {
		m := c.receive(t)
		if err := m.Ack(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
}

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
	r.expectNone(t, 1500*time.Millisecond)
}

// When its context is done Consume stops deliveries but keeps the
// connection until the messages handed out are settled.
func TestShutdownWaitsForOutstandingMessages(t *testing.T) {
	o := testOptions(t, "drain")
	r := start(t, o)
	publish(t, o, event, nil)
	m := r.receive(t)
	r.cancel()
	waitFor(t, "Ready false", func() bool { return !r.Ready() })
	select {
	case <-r.done:
		t.Fatalf("Consume returned %v with a message outstanding", r.err)
	case <-time.After(200 * time.Millisecond):
	}
	if err := m.Ack(context.Background()); err != nil {
		t.Fatalf("Ack during shutdown: %v", err)
	}
	select {
	case <-r.done:
		if r.err != nil {
			t.Errorf("Consume returned %v", r.err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Consume did not return once the message was settled")
	}
	if n := queueDepth(t, o.QueueName()); n != 0 {
		t.Errorf("queue holds %d messages, want 0", n)
	}
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
