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
