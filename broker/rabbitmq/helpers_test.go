package rabbitmq

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/bundle-adapter/bundle-adapter/broker/brokertest"
	"github.com/bundle-adapter/bundle-adapter/internal/stacktest"
)

// testURL is the machine's RabbitMQ; RABBITMQ_URL overrides it.
func testURL() string {
	if u := os.Getenv("RABBITMQ_URL"); u != "" {
		return u
	}
	return "amqp://guest:guest@127.0.0.1:5672/"
}

// requireRabbit skips the test when RabbitMQ does not answer.
func requireRabbit(t *testing.T) {
	t.Helper()
	u, err := amqp.ParseURI(testURL())
	if err != nil {
		t.Fatal(err)
	}
	addr := net.JoinHostPort(u.Host, fmt.Sprint(u.Port))
	conn, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		t.Skipf("RabbitMQ does not answer at %s (%v): start it to run this test", addr, err)
	}
	_ = conn.Close()
}

var nonName = regexp.MustCompile(`[^a-zA-Z0-9]+`)

// testOptions names an exchange and queues for this test only and deletes
// them when it ends.
func testOptions(t *testing.T, subscription string) Options {
	t.Helper()
	requireRabbit(t)
	return topicOptions(t, testTopic(t), subscription)
}

// testTopic is an exchange name of this test only.
func testTopic(t *testing.T) string {
	return fmt.Sprintf("ba-test-%s-%s", strings.ToLower(nonName.ReplaceAllString(t.Name(), "-")), newID()[:6])
}

// topicOptions are the options of a test's consumer of topic with
// subscription; the exchange and the subscription's queues are deleted when
// the test ends.
func topicOptions(t *testing.T, topic, subscription string) Options {
	t.Helper()
	o := Options{
		URL: testURL(), Topic: topic, SubscriptionID: subscription,
		MinBackoff: 100 * time.Millisecond, MaxBackoff: 500 * time.Millisecond,
		DrainTimeout: 5 * time.Second,
		Logger:       testLogger(),
	}
	t.Cleanup(func() { deleteTopology(t, o) })
	return o
}

// testLogger shows warnings with -v only.
func testLogger() *slog.Logger {
	var w io.Writer = io.Discard
	if testing.Verbose() {
		w = os.Stderr
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// deleteTopology removes the exchange and every queue a test may declare.
func deleteTopology(t *testing.T, o Options) {
	ch := adminChannel(t)
	o = o.withDefaults()
	queues := []string{o.QueueName(), o.DeadLetterQueueName()}
	for ttl := time.Second; ttl <= 8*time.Second; ttl *= 2 {
		queues = append(queues, o.retryQueueName(ttl))
	}
	for _, q := range queues {
		if _, err := ch.QueueDelete(q, false, false, false); err != nil {
			t.Errorf("delete queue %s: %v", q, err)
			ch = adminChannel(t)
		}
	}
	if err := ch.ExchangeDelete(o.Exchange, false, false); err != nil {
		t.Errorf("delete exchange %s: %v", o.Exchange, err)
	}
}

// adminChannel is a channel on a connection closed when the test ends.
func adminChannel(t *testing.T) *amqp.Channel {
	t.Helper()
	conn, err := amqp.Dial(testURL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	ch, err := conn.Channel()
	if err != nil {
		t.Fatal(err)
	}
	return ch
}

// running is a Consumer whose Consume runs until the test ends (or stop).
type running struct{ *brokertest.Running }

// start runs Consume and waits until the consumer is subscribed.
func start(t *testing.T, o Options) *running {
	t.Helper()
	return &running{brokertest.Start(t, New(o))}
}

// receive waits for the next message.
func (r *running) receive(t *testing.T) *Message {
	t.Helper()
	return r.Receive(t).(*Message)
}

// publish sends body to the test's exchange.
func publish(t *testing.T, o Options, body string, headers map[string]any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := Publish(ctx, testURL(), o.withDefaults().Exchange, "clusters.reconcile", []byte(body), headers); err != nil {
		t.Fatal(err)
	}
}

// queueDepth is the number of ready messages in queue.
func queueDepth(t *testing.T, queue string) int {
	t.Helper()
	q, err := adminChannel(t).QueueDeclarePassive(queue, true, false, false, false, nil)
	if err != nil {
		t.Fatalf("inspect queue %s: %v", queue, err)
	}
	return q.Messages
}

// getOne takes one message from queue (auto-acked).
func getOne(t *testing.T, queue string) amqp.Delivery {
	t.Helper()
	ch := adminChannel(t)
	var d amqp.Delivery
	waitFor(t, "a message in "+queue, func() bool {
		var ok bool
		var err error
		d, ok, err = ch.Get(queue, true)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	})
	return d
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	brokertest.WaitFor(t, what, cond)
}

// closeConnection force-closes the connection named name with rabbitmqctl,
// as an operator or a broker failover would.
func closeConnection(t *testing.T, name string) {
	t.Helper()
	if _, err := exec.LookPath("rabbitmqctl"); err != nil {
		t.Skip("rabbitmqctl is not available: cannot force a connection close")
	}
	if err := stacktest.CloseRabbitMQConnection(name, 15*time.Second); err != nil {
		t.Fatal(err)
	}
}
