package stacktest

import (
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

func rabbitURL(t *testing.T) string {
	t.Helper()
	url := os.Getenv("RABBITMQ_URL")
	if url == "" {
		url = "amqp://guest:guest@127.0.0.1:5672/"
	}
	u, err := amqp.ParseURI(url)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.DialTimeout("tcp", net.JoinHostPort(u.Host, "5672"), time.Second)
	if err != nil {
		t.Skipf("RabbitMQ does not answer (%v)", err)
	}
	conn.Close()
	return url
}

// rabbitChannel connects to the test's RabbitMQ (skipping the test when it
// does not answer) and opens a channel; the connection closes with the test.
func rabbitChannel(t *testing.T) (string, *amqp.Connection, *amqp.Channel) {
	t.Helper()
	url := rabbitURL(t)
	conn, err := amqp.Dial(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	ch, err := conn.Channel()
	if err != nil {
		t.Fatal(err)
	}
	return url, conn, ch
}

// DropRabbitMQ deletes the queue, its dead-letter queue and the exchange;
// dropping them again (all missing) is fine.
func TestDropRabbitMQ(t *testing.T) {
	url, conn, ch := rabbitChannel(t)
	const exchange, queue = "stacktest-drop", "stacktest-drop-q"
	if err := ch.ExchangeDeclare(exchange, "topic", true, false, false, false, nil); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{queue, queue + ".dead-letter"} {
		if _, err := ch.QueueDeclare(q, true, false, false, false, nil); err != nil {
			t.Fatal(err)
		}
	}
	for range 2 {
		if err := DropRabbitMQ(url, exchange, queue); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range []string{queue, queue + ".dead-letter"} {
		ch, _ := conn.Channel()
		if _, err := ch.QueueDeclarePassive(q, true, false, false, false, nil); err == nil {
			t.Errorf("queue %s is still there", q)
		}
	}
	ch, _ = conn.Channel()
	if err := ch.ExchangeDeclarePassive(exchange, "topic", true, false, false, false, nil); err == nil {
		t.Errorf("exchange %s is still there", exchange)
	}
}

// CloseRabbitMQConnection closes the named connection, and fails when no
// connection of that name shows up in time.
func TestCloseRabbitMQConnection(t *testing.T) {
	url := rabbitURL(t)
	if _, err := exec.LookPath("rabbitmqctl"); err != nil {
		t.Skip("rabbitmqctl is not available")
	}
	name := "stacktest-close " + time.Now().Format(time.RFC3339Nano)
	props := amqp.NewConnectionProperties()
	props.SetClientConnectionName(name)
	conn, err := amqp.DialConfig(url, amqp.Config{Properties: props})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	closed := conn.NotifyClose(make(chan *amqp.Error, 1))
	if err := CloseRabbitMQConnection(name, 15*time.Second); err != nil {
		t.Fatal(err)
	}
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Error("the connection was not closed")
	}
	if err := CloseRabbitMQConnection(name+" gone", 200*time.Millisecond); err == nil {
		t.Error("closing a connection that is not there succeeded")
	}
}

// QueueDepth counts a queue's ready and unacked messages apart, and fails
// for a queue that does not exist.
func TestQueueDepth(t *testing.T) {
	_, conn, ch := rabbitChannel(t)
	if _, err := exec.LookPath("rabbitmqctl"); err != nil {
		t.Skip("rabbitmqctl is not available")
	}
	queue := "stacktest-depth-" + time.Now().Format("150405.000000000")
	if _, err := ch.QueueDeclare(queue, false, true, false, false, nil); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if err := ch.Publish("", queue, false, false, amqp.Publishing{Body: []byte("m")}); err != nil {
			t.Fatal(err)
		}
	}
	consumer, _ := conn.Channel()
	if _, ok, err := consumer.Get(queue, false); err != nil || !ok {
		t.Fatalf("get: %v %v", ok, err)
	}
	var ready, unacked int
	deadline := time.Now().Add(10 * time.Second)
	for {
		var err error
		if ready, unacked, err = QueueDepth(queue); err != nil {
			t.Fatal(err)
		}
		if (ready == 2 && unacked == 1) || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if ready != 2 || unacked != 1 {
		t.Errorf("ready %d, unacked %d; want 2 and 1", ready, unacked)
	}
	if _, _, err := QueueDepth(queue + "-missing"); err == nil {
		t.Error("a missing queue has a depth")
	}
}

// WaitQueueConsumed returns once the queue has a consumer, and fails
// naming the queue while it has none, or at once when the subscriber
// exited; a missing queue is waited for, not an error.
func TestWaitQueueConsumed(t *testing.T) {
	url, _, ch := rabbitChannel(t)
	queue := "stacktest-wait-" + time.Now().Format("150405.000000")
	if err := WaitQueueConsumed(url, queue, 300*time.Millisecond, nil); err == nil || !strings.Contains(err.Error(), queue) {
		t.Errorf("missing queue: %v, want a timeout naming it", err)
	}
	if _, err := ch.QueueDeclare(queue, false, true, false, false, nil); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	close(exited)
	if err := WaitQueueConsumed(url, queue, time.Minute, exited); err == nil || !strings.Contains(err.Error(), "exited") {
		t.Errorf("subscriber exited: %v", err)
	}
	if _, err := ch.Consume(queue, "", true, false, false, false, nil); err != nil {
		t.Fatal(err)
	}
	if err := WaitQueueConsumed(url, queue, 10*time.Second, nil); err != nil {
		t.Errorf("consumed queue: %v", err)
	}
}
