package pubsub

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"cloud.google.com/go/pubsub/v2"
	"google.golang.org/api/option"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/bundle-adapter/bundle-adapter/broker"
)

// Consumer receives from the subscription; it implements broker.Consumer.
// Create it with New, call Consume once at a time, Close when done.
type Consumer struct {
	opts        Options
	log         *slog.Logger
	client      *pubsub.Client
	sub         *pubsub.Subscriber
	deadLetters *pubsub.Publisher
	ready       atomic.Bool
	held        *held
	attempts    *attemptCounter
	inflight    sync.WaitGroup // messages handed out and not yet settled

	mu        sync.Mutex
	unsettled map[*Message]struct{} // handed out, no settle begun
}

var _ broker.Consumer = (*Consumer)(nil)

// New connects, creates what is missing (see the package documentation)
// and returns a Consumer that does not receive yet. Unless ReadFiles ran,
// it runs it with os.LookupEnv. An error means invalid
// options, no connection, or a missing permission.
func New(ctx context.Context, o Options) (*Consumer, error) {
	o = o.withDefaults()
	if err := o.validate(); err != nil {
		return nil, err
	}
	if !o.FilesRead {
		var err error
		if o, err = o.ReadFiles(os.LookupEnv); err != nil {
			return nil, fmt.Errorf("pubsub options: %w", err)
		}
	}
	o.Logger = o.Logger.With("broker", "googlepubsub", "subscription", o.SubscriptionName())
	client, err := pubsub.NewClient(ctx, o.ProjectID, clientOptions(o)...)
	if err != nil {
		return nil, fmt.Errorf("pubsub client for project %s: %w", o.ProjectID, err)
	}
	if err := ensure(ctx, client, o); err != nil {
		_ = client.Close()
		return nil, err
	}
	c := &Consumer{
		opts: o, log: o.Logger, client: client,
		sub:         client.Subscriber(o.SubscriptionName()),
		deadLetters: client.Publisher(o.DeadLetterTopic),
		held:        newHeld(), attempts: newAttemptCounter(),
		unsettled: map[*Message]struct{}{},
	}
	c.sub.ReceiveSettings.MaxOutstandingMessages = o.MaxOutstandingMessages
	if o.MaxOutstandingBytes > 0 {
		c.sub.ReceiveSettings.MaxOutstandingBytes = o.MaxOutstandingBytes
	}
	if o.NumGoroutines > 0 {
		c.sub.ReceiveSettings.NumGoroutines = o.NumGoroutines
	}
	// No ShutdownOptions: the client's graceful shutdown, which keeps its
	// streams until every message handed out is acked or nacked, so acks
	// made while Consume drains reach Pub/Sub. A timed shutdown stops the
	// streams at once and drops them. releaseUnsettled bounds the wait.
	c.sub.ReceiveSettings.ShutdownOptions = nil
	return c, nil
}

func clientOptions(o Options) []option.ClientOption {
	opts := endpointOptions(o)
	if o.credentials != nil {
		opts = append(opts, o.credentials)
	}
	return append(opts, o.ClientOptions...)
}

// Options are the options in effect, defaults applied.
func (c *Consumer) Options() Options { return c.opts }

// Ready reports whether Consume is receiving. The client reconnects its
// streams by itself, so Ready stays true through short outages it rides
// out; it turns false when the client gives up, until Consume receives
// again.
func (c *Consumer) Ready() bool { return c.ready.Load() }

// Consume calls handle for every message, at most MaxOutstandingMessages
// unsettled (or held by Retry) at once. The client retries transient errors
// itself; when it gives up, Consume makes sure the subscription exists and
// receives again after a backoff (ReconnectMinBackoff doubling to
// ReconnectMaxBackoff).
//
// When ctx is done, Consume stops receiving, nacks the messages held by
// Retry, waits up to DrainTimeout for the messages handed out to be
// settled, and returns nil. It returns an error only for what retrying
// cannot fix: missing permissions or credentials, invalid arguments.
func (c *Consumer) Consume(ctx context.Context, handle func(broker.Message)) error {
	c.held.start()
	defer context.AfterFunc(ctx, c.held.stop)()
	defer context.AfterFunc(ctx, func() { time.AfterFunc(c.opts.DrainTimeout, c.releaseUnsettled) })()
	backoff := c.opts.ReconnectMinBackoff
	for {
		err := c.receive(ctx, handle)
		if ctx.Err() != nil {
			c.drain()
			return nil
		}
		if permanent(err) {
			return fmt.Errorf("pubsub subscription %s: %w", c.opts.SubscriptionName(), err)
		}
		c.log.Warn("receiving stopped; receiving again", "error", err, "retry_in", backoff)
		if !broker.Wait(ctx, backoff) {
			return nil
		}
		backoff = broker.NextBackoff(backoff, c.opts.ReconnectMaxBackoff)
		if err := ensure(ctx, c.client, c.opts); permanent(err) {
			return err
		}
	}
}

// receive runs the client's Receive until it stops.
func (c *Consumer) receive(ctx context.Context, handle func(broker.Message)) error {
	c.ready.Store(true)
	defer c.ready.Store(false)
	// Not ready from the moment shutdown begins, while Receive waits for
	// the messages handed out.
	defer context.AfterFunc(ctx, func() { c.ready.Store(false) })()
	c.log.Info("receiving", "max_outstanding", c.opts.MaxOutstandingMessages)
	err := c.sub.Receive(ctx, func(_ context.Context, pm *pubsub.Message) {
		m := c.newMessage(pm)
		handle(m)
		// The client counts a message as processed when this callback
		// returns: at shutdown it waits (ShutdownBehaviorWaitForProcessing,
		// up to DrainTimeout) only for callbacks still running, and drops
		// acks sent after Receive returned. So the callback lasts until the
		// message is settled.
		<-m.done
	})
	if err == nil && ctx.Err() == nil {
		err = errors.New("receive ended")
	}
	return err
}

// drain waits up to DrainTimeout for the messages handed out to be
// settled. Receive itself already waited for them (its callbacks last until
// a message is settled); this covers a receive that ended on an error.
func (c *Consumer) drain() {
	settled := make(chan struct{})
	go func() {
		c.inflight.Wait()
		close(settled)
	}()
	select {
	case <-settled:
	case <-time.After(c.opts.DrainTimeout):
		c.log.Warn("messages still unsettled at shutdown; Pub/Sub redelivers them when their lease expires", "waited", c.opts.DrainTimeout)
	}
}

// releaseUnsettled nacks every message handed out whose settle has not
// begun: what the handler did not settle within DrainTimeout of shutdown
// goes back to Pub/Sub now instead of holding the client's streams open.
func (c *Consumer) releaseUnsettled() {
	c.mu.Lock()
	ms := make([]*Message, 0, len(c.unsettled))
	for m := range c.unsettled {
		ms = append(ms, m)
	}
	c.mu.Unlock()
	for _, m := range ms {
		if m.Release(context.Background()) == nil {
			c.log.Warn("message unsettled at shutdown; released for redelivery", "message_id", m.ID())
		}
	}
}

// Close stops the dead-letter publisher and closes the client. Call it
// after Consume returned.
func (c *Consumer) Close() error {
	c.deadLetters.Stop()
	return c.client.Close()
}

// permanent reports errors retrying cannot fix.
func permanent(err error) bool {
	switch status.Code(err) {
	case codes.PermissionDenied, codes.Unauthenticated, codes.InvalidArgument:
		return true
	}
	return false
}
