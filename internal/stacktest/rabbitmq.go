package stacktest

import (
	"fmt"
	"os/exec"
	"strings"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

// DropRabbitMQ deletes what an adapter declared on RabbitMQ for a run: its
// queue, the queue's dead-letter queue (<queue>.dead-letter) and the
// exchange, so runs do not pile up durable queues and no event of an
// earlier run is left for the next. Missing ones are fine; the retry delay
// queues expire by themselves.
func DropRabbitMQ(url, exchange, queue string) error {
	conn, err := amqp.DialConfig(url, amqp.Config{Dial: amqp.DefaultDial(10 * time.Second)})
	if err != nil {
		return err
	}
	defer conn.Close()
	for _, q := range []string{queue, queue + ".dead-letter"} {
		ch, err := conn.Channel()
		if err != nil {
			return err
		}
		if _, err := ch.QueueDelete(q, false, false, false); err != nil {
			return err
		}
		_ = ch.Close()
	}
	ch, err := conn.Channel()
	if err != nil {
		return err
	}
	defer ch.Close()
	return ch.ExchangeDelete(exchange, false, false)
}

// CloseRabbitMQConnection force-closes, with rabbitmqctl, the connection
// whose client property connection_name is name, as an operator or a broker
// failover would. It waits up to timeout for the connection to be listed.
func CloseRabbitMQConnection(name string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		pid, err := rabbitMQConnectionPID(name)
		if err != nil {
			return err
		}
		if pid != "" {
			if out, err := exec.Command("rabbitmqctl", "close_connection", pid, "test: forced close").CombinedOutput(); err != nil {
				return fmt.Errorf("rabbitmqctl close_connection: %v\n%s", err, out)
			}
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no RabbitMQ connection named %q listed within %v", name, timeout)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// rabbitMQConnectionPID is the pid rabbitmqctl lists for the connection
// named name, "" when none is.
func rabbitMQConnectionPID(name string) (string, error) {
	out, err := exec.Command("rabbitmqctl", "-q", "list_connections", "pid", "client_properties").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("rabbitmqctl list_connections: %v\n%s", err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, `"`+name+`"`) {
			return strings.Fields(line)[0], nil
		}
	}
	return "", nil
}

// QueueDepth is what rabbitmqctl lists for queue: messages ready for
// delivery and messages delivered but not yet acked. A queue that is not
// listed is an error.
func QueueDepth(queue string) (ready, unacked int, err error) {
	out, err := exec.Command("rabbitmqctl", "-q", "list_queues", "name", "messages_ready", "messages_unacknowledged").CombinedOutput()
	if err != nil {
		return 0, 0, fmt.Errorf("rabbitmqctl list_queues: %v\n%s", err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) == 3 && f[0] == queue {
			if _, err := fmt.Sscan(f[1]+" "+f[2], &ready, &unacked); err != nil {
				return 0, 0, fmt.Errorf("rabbitmqctl list_queues: %q: %v", line, err)
			}
			return ready, unacked, nil
		}
	}
	return 0, 0, fmt.Errorf("queue %s not listed by rabbitmqctl", queue)
}

// WaitQueueConsumed waits until queue exists on the RabbitMQ at url with at
// least one consumer (a subscriber is ready to receive what is published to
// its exchange), checking every 200 ms by a passive declare. It fails at
// timeout, or at once when done is closed (the subscriber exited).
func WaitQueueConsumed(url, queue string, timeout time.Duration, done <-chan struct{}) error {
	conn, err := amqp.DialConfig(url, amqp.Config{Dial: amqp.DefaultDial(10 * time.Second)})
	if err != nil {
		return err
	}
	defer conn.Close()
	deadline := time.Now().Add(timeout)
	for {
		// A passive declare of a missing queue closes the channel: one per try.
		ch, err := conn.Channel()
		if err != nil {
			return err
		}
		q, err := ch.QueueDeclarePassive(queue, false, false, false, false, nil)
		if err == nil {
			_ = ch.Close()
			if q.Consumers > 0 {
				return nil
			}
		}
		select {
		case <-done:
			return fmt.Errorf("the subscriber exited before queue %s had a consumer", queue)
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("queue %s had no consumer within %v", queue, timeout)
		}
	}
}
