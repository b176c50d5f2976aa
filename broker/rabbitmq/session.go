package rabbitmq

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/bundle-adapter/bundle-adapter/broker"
)

// session is one connection: a consume channel with QoS, a publish channel
// in confirm mode, and the messages handed out on it. It ends when the
// connection or either channel closes; it is never reused.
type session struct {
	opts Options
	log  *slog.Logger
	conn *amqp.Connection
	ch   *amqp.Channel
	pub  *publisher
	tag  string
	// kind is the exchange's kind: as configured, or as someone else
	// declared it.
	kind string
	// cancels reports the broker cancelling the consumer (queue deleted).
	cancels chan string

	done     chan struct{} // closed when the session ended
	once     sync.Once
	cause    error // why it ended; set before done is closed
	inflight sync.WaitGroup
}

// dial connects, declares the topology and opens both channels.
func dial(o Options, log *slog.Logger) (*session, error) {
	props := amqp.NewConnectionProperties()
	props["connection_name"] = o.ConnectionName
	conn, err := amqp.DialConfig(o.URL, amqp.Config{
		Heartbeat:  10 * time.Second,
		Properties: props,
		Dial:       amqp.DefaultDial(10 * time.Second),
	})
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", redactURL(o.URL), err)
	}
	s := &session{opts: o, log: log, conn: conn, tag: o.consumerTag(), done: make(chan struct{})}
	if err := s.open(); err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

func (s *session) open() error {
	s.watch(s.conn.NotifyClose(make(chan *amqp.Error, 1)))
	kind, err := declareExchange(s.conn, s.opts, s.log)
	if err != nil {
		return err
	}
	s.kind = kind
	ch, err := s.conn.Channel()
	if err != nil {
		return fmt.Errorf("open channel: %w", err)
	}
	s.ch = ch
	s.watch(ch.NotifyClose(make(chan *amqp.Error, 1)))
	if err := declareQueues(ch, s.opts, kind); err != nil {
		return err
	}
	if err := ch.Qos(s.opts.Prefetch, 0, false); err != nil {
		return fmt.Errorf("set prefetch %d: %w", s.opts.Prefetch, err)
	}
	pub, err := newPublisher(s.conn)
	if err != nil {
		return err
	}
	s.pub = pub
	s.watch(pub.ch.NotifyClose(make(chan *amqp.Error, 1)))
	return nil
}

// watch ends the session when c reports a close.
func (s *session) watch(c chan *amqp.Error) {
	go func() {
		if err, ok := <-c; ok && err != nil {
			s.end(err)
			return
		}
		s.end(errors.New("connection closed"))
	}()
}

func (s *session) end(cause error) {
	s.once.Do(func() {
		s.cause = cause
		close(s.done)
	})
}

// alive is nil while the session has not ended.
func (s *session) alive() error {
	select {
	case <-s.done:
		return ErrConnectionLost
	default:
		return nil
	}
}

// close closes the connection; unsettled messages go back to the queue.
func (s *session) close() {
	s.end(errors.New("connection closed by the consumer"))
	if err := s.conn.Close(); err != nil && !errors.Is(err, amqp.ErrClosed) {
		s.log.Debug("closing connection", "error", err)
	}
}

// consume subscribes to the queue.
func (s *session) consume() (<-chan amqp.Delivery, error) {
	s.cancels = s.ch.NotifyCancel(make(chan string, 1))
	deliveries, err := s.ch.Consume(s.opts.QueueName(), s.tag, false, false, false, false, nil)
	if err != nil {
		return nil, fmt.Errorf("consume from queue %q: %w", s.opts.QueueName(), err)
	}
	return deliveries, nil
}

// deliver hands messages to handle until ctx is done (nil) or the session
// ends (its cause).
func (s *session) deliver(ctx context.Context, deliveries <-chan amqp.Delivery, handle func(broker.Message)) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-s.done:
			return s.cause
		case d, ok := <-deliveries:
			if !ok {
				return s.stopped()
			}
			s.inflight.Add(1)
			handle(&Message{d: d, s: s})
		}
	}
}

// stopped explains why deliveries stopped: the broker cancelled the
// consumer (its notice comes before the deliveries close), or the channel
// closed (the session ends at once).
func (s *session) stopped() error {
	select {
	case _, ok := <-s.cancels:
		if ok {
			return errors.New("the broker cancelled the consumer (queue deleted?)")
		}
	default:
	}
	select {
	case <-s.done:
		return s.cause
	case <-time.After(time.Second):
		return errors.New("deliveries stopped")
	}
}

// drain stops deliveries and waits until every message handed out was
// settled, the session ended, or timeout passed.
func (s *session) drain(timeout time.Duration) {
	if err := s.ch.Cancel(s.tag, false); err != nil {
		s.log.Debug("cancel consumer", "error", err)
	}
	settled := make(chan struct{})
	go func() {
		s.inflight.Wait()
		close(settled)
	}()
	select {
	case <-settled:
	case <-s.done:
	case <-time.After(timeout):
		s.log.Warn("messages still unsettled at shutdown; RabbitMQ redelivers them", "waited", timeout)
	}
}

// settled records that a handed-out message was settled (or given up).
func (s *session) settled() { s.inflight.Done() }

// publish stores msg through the default exchange with the publisher's
// confirm, within ConfirmTimeout.
func (s *session) publish(ctx context.Context, to route, msg amqp.Publishing) error {
	ctx, cancel := context.WithTimeout(ctx, s.opts.ConfirmTimeout)
	defer cancel()
	return s.pub.publish(ctx, "", to, msg)
}
