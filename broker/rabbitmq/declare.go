package rabbitmq

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"math/bits"
	"regexp"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

// maxRetryTTL is the longest delay queue; longer Retry delays use it.
const maxRetryTTL = 65536 * time.Second

// retryQueueIdle is how long an unused delay queue outlives its TTL.
const retryQueueIdle = time.Hour

// declareExchange declares the exchange as Options says, on a channel of its
// own: RabbitMQ closes a channel on a refused declare. An exchange that
// exists with another type or settings (someone else declared it, e.g.
// Sentinel through hyperfleet-broker) is used as it is declared, after a
// warning that says what differs. It returns the exchange's kind: the
// declared one when RabbitMQ names it, else the configured one.
func declareExchange(conn *amqp.Connection, o Options, log *slog.Logger) (string, error) {
	err := onChannel(conn, func(ch *amqp.Channel) error {
		return ch.ExchangeDeclare(o.Exchange, o.ExchangeType, true, false, false, false, nil)
	})
	if err == nil {
		return o.ExchangeType, nil
	}
	var refused *amqp.Error
	if !errors.As(err, &refused) || refused.Code != amqp.PreconditionFailed {
		return "", fmt.Errorf("declare exchange %q (%s): %w", o.Exchange, o.ExchangeType, err)
	}
	if perr := onChannel(conn, func(ch *amqp.Channel) error {
		return ch.ExchangeDeclarePassive(o.Exchange, o.ExchangeType, true, false, false, false, nil)
	}); perr != nil {
		return "", fmt.Errorf("declare exchange %q (%s): %w; using it as declared failed too: %w", o.Exchange, o.ExchangeType, err, perr)
	}
	declared := declaredKind(refused.Reason)
	log.Warn("exchange exists with another type or settings than configured; using it as declared",
		"exchange", o.Exchange, "configured", o.ExchangeType, "declared", cmp.Or(declared, "unknown"),
		"binding_key", o.bindingKey(cmp.Or(declared, o.ExchangeType)), "rabbitmq", refused.Reason)
	return cmp.Or(declared, o.ExchangeType), nil
}

// inequivalentType matches RabbitMQ's refusal of an exchange type:
// "inequivalent arg 'type' ... received 'topic' but current is 'fanout'".
var inequivalentType = regexp.MustCompile(`inequivalent arg 'type'.*but current is '([a-z.-]+)'`)

// declaredKind is the existing exchange's kind named by a 406 reason, or "".
func declaredKind(reason string) string {
	if m := inequivalentType.FindStringSubmatch(reason); m != nil {
		return m[1]
	}
	return ""
}

// onChannel runs f on a channel of its own and closes it.
func onChannel(conn *amqp.Connection, f func(*amqp.Channel) error) error {
	ch, err := conn.Channel()
	if err != nil {
		return fmt.Errorf("open channel: %w", err)
	}
	err = f(ch)
	_ = ch.Close() // already closed by RabbitMQ when f was refused
	return err
}

// declareQueues declares the subscription queue bound to the exchange (of
// kind) and the dead-letter queue. It is idempotent; an error with code
// 406 (PRECONDITION_FAILED) means a queue exists with other settings.
func declareQueues(ch *amqp.Channel, o Options, kind string) error {
	if _, err := ch.QueueDeclare(o.QueueName(), true, false, false, false, nil); err != nil {
		return fmt.Errorf("declare queue %q: %w", o.QueueName(), err)
	}
	key := o.bindingKey(kind)
	if err := ch.QueueBind(o.QueueName(), key, o.Exchange, false, nil); err != nil {
		return fmt.Errorf("bind queue %q to exchange %q with %q: %w", o.QueueName(), o.Exchange, key, err)
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
