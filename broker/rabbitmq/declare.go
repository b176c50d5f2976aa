package rabbitmq

import (
	"fmt"
	"math/bits"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

// maxRetryTTL is the longest delay queue; longer Retry delays use it.
const maxRetryTTL = 65536 * time.Second

// retryQueueIdle is how long an unused delay queue outlives its TTL.
const retryQueueIdle = time.Hour

// declareTopology declares the exchange, the subscription queue bound to it
// and the dead-letter queue. It is idempotent; an error with code 406
// (PRECONDITION_FAILED) means one exists with other settings.
func declareTopology(ch *amqp.Channel, o Options) error {
	if err := ch.ExchangeDeclare(o.Exchange, o.ExchangeType, true, false, false, false, nil); err != nil {
		return fmt.Errorf("declare exchange %q (%s): %w", o.Exchange, o.ExchangeType, err)
	}
	if _, err := ch.QueueDeclare(o.QueueName(), true, false, false, false, nil); err != nil {
		return fmt.Errorf("declare queue %q: %w", o.QueueName(), err)
	}
	if err := ch.QueueBind(o.QueueName(), o.RoutingKey, o.Exchange, false, nil); err != nil {
		return fmt.Errorf("bind queue %q to exchange %q with %q: %w", o.QueueName(), o.Exchange, o.RoutingKey, err)
	}
	return declareDeadLetterQueue(ch, o)
}

func declareDeadLetterQueue(ch *amqp.Channel, o Options) error {
	if _, err := ch.QueueDeclare(o.DeadLetterQueueName(), true, false, false, false, nil); err != nil {
		return fmt.Errorf("declare dead-letter queue %q: %w", o.DeadLetterQueueName(), err)
	}
	return nil
}

// declareRetryQueue declares the delay queue of ttl: messages expire after
// ttl into the subscription queue (default exchange, routing key = queue
// name). Declaring it again resets its idle expiry.
func declareRetryQueue(ch *amqp.Channel, o Options, ttl time.Duration) (string, error) {
	name := o.retryQueueName(ttl)
	args := amqp.Table{
		"x-message-ttl":             ttl.Milliseconds(),
		"x-dead-letter-exchange":    "",
		"x-dead-letter-routing-key": o.QueueName(),
		"x-expires":                 (ttl + retryQueueIdle).Milliseconds(),
	}
	if _, err := ch.QueueDeclare(name, true, false, false, false, args); err != nil {
		return "", fmt.Errorf("declare retry queue %q: %w", name, err)
	}
	return name, nil
}

// retryTTL rounds delay up to a power of two seconds, from 1s to maxRetryTTL.
func retryTTL(delay time.Duration) time.Duration {
	if delay >= maxRetryTTL {
		return maxRetryTTL
	}
	secs := uint64((delay + time.Second - 1) / time.Second)
	if secs <= 1 {
		return time.Second
	}
	return time.Duration(1<<bits.Len64(secs-1)) * time.Second
}
