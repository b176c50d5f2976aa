package rabbitmq

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"time"

	"github.com/bundle-adapter/bundle-adapter/internal/secret"
	amqp "github.com/rabbitmq/amqp091-go"
)

// Options configures a Consumer. URL, Topic and SubscriptionID are required;
// every other field has the default its comment states.
type Options struct {
	// URL is the AMQP URL, amqp://user:password@host:port/vhost. The password
	// is never logged.
	URL string
	// Exchange is the exchange the events are published to; default Topic,
	// as hyperfleet-broker names it.
	Exchange string
	// ExchangeType is the kind declared when the exchange does not exist:
	// fanout (the default, as hyperfleet-broker declares it), topic,
	// direct or headers. An exchange that exists with another kind is
	// used as it is declared, with a warning (see Consume).
	ExchangeType string
	// Topic and SubscriptionID name the queue "<topic>-<subscription_id>".
	Topic          string
	SubscriptionID string
	// Queue, when set, replaces Topic in the queue name:
	// "<queue>-<subscription_id>", as hyperfleet-broker names it.
	Queue string
	// RoutingKey binds the queue to the exchange: the key the events are
	// published with. Default "#" (every event) on a topic exchange, empty
	// on the others (a fanout or headers exchange ignores it; a direct one
	// matches hyperfleet-broker's empty publishing key).
	RoutingKey string
	// ConsumerTag names the consumer (rabbitmqctl list_consumers); default
	// "bundle-adapter-<random>". RabbitMQ needs it unique per channel only.
	ConsumerTag string
	// Prefetch bounds the messages handed out and not yet settled; default 10.
	Prefetch int
	// MinBackoff and MaxBackoff bound the reconnect delay, which doubles
	// with every failed attempt; defaults 500ms and 30s.
	MinBackoff, MaxBackoff time.Duration
	// ConfirmTimeout bounds the wait for the broker's publisher confirm in
	// Retry and DeadLetter; default 30s.
	ConfirmTimeout time.Duration
	// DrainTimeout is how long Consume, once its context is done, keeps the
	// connection open for messages handed out to be settled; default 30s.
	DrainTimeout time.Duration
	// ConnectionName is shown by the management UI and rabbitmqctl
	// (connection_name client property); default "bundle-adapter <queue>".
	ConnectionName string
	// Logger defaults to slog.Default().
	Logger *slog.Logger
}

// QueueName is the subscription's queue, "<topic>-<subscription_id>", or
// "<queue>-<subscription_id>" when Queue is set.
func (o Options) QueueName() string { return cmp.Or(o.Queue, o.Topic) + "-" + o.SubscriptionID }

// bindingKey is the key the queue is bound with on an exchange of kind.
func (o Options) bindingKey(kind string) string {
	if o.RoutingKey != "" {
		return o.RoutingKey
	}
	if kind == amqp.ExchangeTopic {
		return "#"
	}
	return ""
}

// consumerTag is ConsumerTag or, when empty, a fresh random tag.
func (o Options) consumerTag() string { return cmp.Or(o.ConsumerTag, "bundle-adapter-"+newID()[:12]) }

// DeadLetterQueueName is where DeadLetter puts messages, "<queue>.dead-letter".
func (o Options) DeadLetterQueueName() string { return o.QueueName() + ".dead-letter" }

// retryQueueName is the delay queue of one TTL, "<queue>.retry.<N>s".
func (o Options) retryQueueName(ttl time.Duration) string {
	return fmt.Sprintf("%s.retry.%ds", o.QueueName(), int64(ttl/time.Second))
}

func (o Options) withDefaults() Options {
	if o.Exchange == "" {
		o.Exchange = o.Topic
	}
	o.ExchangeType = cmp.Or(o.ExchangeType, amqp.ExchangeFanout)
	if o.Prefetch <= 0 {
		o.Prefetch = 10
	}
	o.MinBackoff = durationOr(o.MinBackoff, 500*time.Millisecond)
	o.MaxBackoff = max(durationOr(o.MaxBackoff, 30*time.Second), o.MinBackoff)
	o.ConfirmTimeout = durationOr(o.ConfirmTimeout, 30*time.Second)
	o.DrainTimeout = durationOr(o.DrainTimeout, 30*time.Second)
	o.ConnectionName = cmp.Or(o.ConnectionName, "bundle-adapter "+o.QueueName())
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return o
}

// validate reports what is missing or malformed; such an error is permanent.
func (o Options) validate() error {
	var errs []error
	if o.URL == "" {
		errs = append(errs, errors.New("url is required"))
	} else if err := secret.CheckURL(o.URL, "amqp(s)", "amqp", "amqps"); err != nil {
		errs = append(errs, fmt.Errorf("url %w", err))
	} else if _, err := amqp.ParseURI(o.URL); err != nil {
		errs = append(errs, fmt.Errorf("url %s: %w", redactURL(o.URL), withoutURL(err)))
	}
	if o.Topic == "" {
		errs = append(errs, errors.New("topic is required"))
	}
	if o.SubscriptionID == "" {
		errs = append(errs, errors.New("subscription id is required"))
	}
	errs = append(errs, o.validateNames()...)
	if o.Prefetch > MaxPrefetch {
		errs = append(errs, fmt.Errorf("prefetch %d is above AMQP's %d (its prefetch count is 16 bits)", o.Prefetch, MaxPrefetch))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("rabbitmq options: %w", err)
	}
	return nil
}

// redactURL hides the password of an AMQP URL for logs and errors
// ("amqp://u:xxxxx@h/"), also one whose password holds an unescaped / ? #
// that url.Parse reads as host and path (secret.CheckURL refuses it;
// secret.MaskURL hides it).
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "<unparsable url>"
	}
	if secret.CheckURL(raw, "amqp(s)", "amqp", "amqps") != nil {
		return secret.MaskURL(raw)
	}
	if pw, has := u.User.Password(); u.User != nil && (!has || pw == "") {
		u.User = url.User("xxxxx") // a lone user name may be a token
	}
	return u.Redacted()
}

// withoutURL drops the URL that url.Parse (inside amqp.ParseURI) puts in
// its errors: it holds the password.
func withoutURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return fmt.Errorf("%v (escape reserved characters in the user name and password, e.g. %%25 for %%)", ue.Err)
	}
	return err
}

func durationOr(v, def time.Duration) time.Duration {
	if v <= 0 {
		return def
	}
	return v
}

// Check reports what Consume would refuse in o (defaults applied), without
// connecting: serve and validate run it before anything connects.
func (o Options) Check() error { return o.withDefaults().validate() }

// AMQP 0-9-1's limits: names are short strings (at most 255 bytes, not
// characters) and the prefetch count is 16 bits. RabbitMQ closes the
// channel on a longer name, and a larger prefetch would wrap around.
const (
	MaxNameBytes = 255
	MaxPrefetch  = 65535
)

// validateNames refuses a name RabbitMQ would refuse: the queue with its
// longest suffix (the dead-letter queue's; a retry queue's ".retry.600s" is
// shorter), the exchange, the consumer tag and the routing key.
func (o Options) validateNames() []error {
	var errs []error
	if n := len(o.DeadLetterQueueName()); n > MaxNameBytes {
		errs = append(errs, fmt.Errorf("dead-letter queue name %q is %d bytes: AMQP names are at most %d bytes, so the queue name %q must be at most %d",
			o.DeadLetterQueueName(), n, MaxNameBytes, o.QueueName(), MaxNameBytes-(n-len(o.QueueName()))))
	}
	for _, f := range []struct{ what, v string }{{"exchange name", o.Exchange}, {"consumer tag", o.ConsumerTag}, {"routing key", o.RoutingKey}} {
		if len(f.v) > MaxNameBytes {
			errs = append(errs, fmt.Errorf("%s is %d bytes: AMQP names are at most %d bytes", f.what, len(f.v), MaxNameBytes))
		}
	}
	return errs
}
