package pubsub

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"google.golang.org/api/option"
)

// Options configures a Consumer. ProjectID, Topic and SubscriptionID are
// required; every other field has the default its comment states.
type Options struct {
	ProjectID string
	// Topic is the topic to consume; SubscriptionID names the subscription
	// on it: "<subscription_id>", as hyperfleet-broker names it.
	Topic          string
	SubscriptionID string
	// Subscription, when set, is the subscription id outright.
	Subscription string
	// DoNotCreateTopicIfMissing and DoNotCreateSubscriptionIfMissing
	// (hyperfleet-broker's create_topic_if_missing and
	// create_subscription_if_missing set to false) make New refuse, naming
	// what is missing, instead of creating the topic or dead-letter topic,
	// or the subscription. A missing dead-letter subscription is then only
	// a warning. Default false: New creates what is missing.
	DoNotCreateTopicIfMissing, DoNotCreateSubscriptionIfMissing bool
	// MessageRetention, ExpirationTTL and EnableMessageOrdering are settings
	// of a subscription New creates, TopicRetention of a topic it creates;
	// zero or nil is Pub/Sub's default, an ExpirationTTL of 0 never
	// expires. Existing resources are left as they are.
	MessageRetention, TopicRetention time.Duration
	ExpirationTTL                    *time.Duration
	EnableMessageOrdering            bool
	// MaxOutstandingBytes and NumGoroutines are the client's receive
	// settings; 0 is the client's default.
	MaxOutstandingBytes, NumGoroutines int
	// Endpoint is the host:port of the Pub/Sub API. A loopback address
	// ("localhost", 127.0.0.0/8, ::1: an emulator or pstest) is reached in
	// plaintext without credentials; any other endpoint over TLS with the
	// credentials of ClientOptions or Application Default Credentials,
	// unless Insecure is set. Empty: Google's endpoint with Application
	// Default Credentials (or PUBSUB_EMULATOR_HOST when set).
	Endpoint string
	// Insecure reaches a non-loopback Endpoint in plaintext without
	// credentials (an emulator on another host). It requires Endpoint.
	Insecure bool
	// ClientOptions are passed to pubsub.NewClient after the Endpoint ones
	// (credentials file, user agent, ...).
	ClientOptions []option.ClientOption
	// AckDeadline of a subscription New creates; default 60s, Pub/Sub
	// allows 10s to 600s. The client extends leases while a message is held.
	AckDeadline time.Duration
	// MaxOutstandingMessages bounds the messages handed out and not yet
	// settled, plus those held by Retry; default 1000.
	MaxOutstandingMessages int
	// DeadLetterTopic receives DeadLetter's copies and, after MaxDeliveries
	// attempts, Pub/Sub's own forwarding; default "<subscription_id>-dlq",
	// hyperfleet-broker's name for it.
	DeadLetterTopic string
	// MaxDeliveries is the dead-letter policy's maximum delivery attempts
	// (dead_letter_max_attempts); default 5, clamped to Pub/Sub's 5..100.
	// Keep the dispatcher's max deliveries at or below it, so that the
	// dispatcher dead-letters (with a reason) before Pub/Sub forwards.
	MaxDeliveries int
	// MinBackoff and MaxBackoff are the retry policy of a subscription New
	// creates: how long Pub/Sub waits before redelivering a nacked message,
	// growing with its attempts; defaults 1s and 60s (Pub/Sub allows 0s to
	// 600s).
	MinBackoff, MaxBackoff time.Duration
	// ReconnectMinBackoff and ReconnectMaxBackoff bound the delay before
	// Consume receives again after the client gave up; defaults 1s and 30s.
	ReconnectMinBackoff, ReconnectMaxBackoff time.Duration
	// PublishTimeout bounds DeadLetter's wait for the publish result;
	// default 30s.
	PublishTimeout time.Duration
	// DrainTimeout is how long Consume, once its context is done, waits for
	// the messages handed out to be settled; default 30s. Messages still
	// unsettled then are released (nacked): Pub/Sub redelivers them.
	DrainTimeout time.Duration
	// Logger defaults to slog.Default().
	Logger *slog.Logger
	// FilesRead says ReadFiles ran (it sets it): New runs it otherwise, so
	// the files the Google libraries would read on their own are read once,
	// bounded, whichever path built the options.
	FilesRead bool
	// credentials are ReadFiles' credentials, handed to the client as bytes.
	credentials option.ClientOption
}

// SubscriptionName is the subscription id: Subscription, or the
// subscription id itself, as hyperfleet-broker names the subscription, so a
// subscription its deployments created is the one consumed here.
func (o Options) SubscriptionName() string {
	if o.Subscription != "" {
		return o.Subscription
	}
	return o.SubscriptionID
}

func (o Options) withDefaults() Options {
	if o.DeadLetterTopic == "" && (o.Subscription != "" || o.Topic != "" && o.SubscriptionID != "") {
		o.DeadLetterTopic = o.SubscriptionName() + "-dlq"
	}
	o.AckDeadline = min(max(durationOr(o.AckDeadline, 60*time.Second), 10*time.Second), 600*time.Second)
	if o.MaxOutstandingMessages <= 0 {
		o.MaxOutstandingMessages = 1000
	}
	if o.MaxDeliveries <= 0 {
		o.MaxDeliveries = 5
	}
	o.MaxDeliveries = min(max(o.MaxDeliveries, 5), 100)
	o.MinBackoff = min(durationOr(o.MinBackoff, time.Second), 600*time.Second)
	o.MaxBackoff = min(max(durationOr(o.MaxBackoff, 60*time.Second), o.MinBackoff), 600*time.Second)
	o.ReconnectMinBackoff = durationOr(o.ReconnectMinBackoff, time.Second)
	o.ReconnectMaxBackoff = max(durationOr(o.ReconnectMaxBackoff, 30*time.Second), o.ReconnectMinBackoff)
	o.PublishTimeout = durationOr(o.PublishTimeout, 30*time.Second)
	o.DrainTimeout = durationOr(o.DrainTimeout, 30*time.Second)
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return o
}

func (o Options) validate() error {
	var errs []error
	if o.ProjectID == "" {
		errs = append(errs, errors.New("project id is required"))
	}
	if o.Topic == "" {
		errs = append(errs, errors.New("topic is required"))
	}
	if o.SubscriptionID == "" {
		errs = append(errs, errors.New("subscription id is required"))
	}
	if o.Insecure && o.Endpoint == "" {
		errs = append(errs, errors.New("insecure requires an endpoint (an emulator); Google's endpoint is always reached over TLS"))
	}
	for _, f := range []struct{ what, v string }{{"topic id", o.Topic}, {"subscription id", o.SubscriptionName()}, {"dead-letter topic id", o.DeadLetterTopic}} {
		if len(f.v) > MaxIDBytes {
			errs = append(errs, fmt.Errorf("%s is %d bytes: Pub/Sub ids are at most %d", f.what, len(f.v), MaxIDBytes))
		}
		if err := checkID(f.what, f.v); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("pubsub options: %w", err)
	}
	return nil
}

func (o Options) topicPath(id string) string {
	return fmt.Sprintf("projects/%s/topics/%s", o.ProjectID, id)
}

func (o Options) subscriptionPath(id string) string {
	return fmt.Sprintf("projects/%s/subscriptions/%s", o.ProjectID, id)
}

func durationOr(v, def time.Duration) time.Duration {
	if v <= 0 {
		return def
	}
	return v
}

// Check reports what New would refuse in o (defaults applied), without
// connecting: serve and validate run it before anything connects.
func (o Options) Check() error { return o.withDefaults().validate() }

// MaxIDBytes is Pub/Sub's limit on a topic or subscription id (255
// characters, which its character set makes bytes).
const MaxIDBytes = 255

// checkID refuses an id Pub/Sub refuses whatever its length: one that does
// not start with a letter, holds a character other than letters, digits
// and - _ . ~ + %, or starts with "goog". An empty id is left to the
// required checks. Pub/Sub's minimum of 3 characters is not checked here:
// the emulator takes shorter ids.
func checkID(what, id string) error {
	if id == "" {
		return nil
	}
	if strings.HasPrefix(strings.ToLower(id), "goog") {
		return fmt.Errorf("%s %q must not start with \"goog\" (Pub/Sub reserves it)", what, id)
	}
	for i, r := range id {
		letter := r < utf8.RuneSelf && unicode.IsLetter(r)
		if (i == 0 && !letter) || (!letter && !unicode.IsDigit(r) && !strings.ContainsRune("-_.~+%", r)) || r >= utf8.RuneSelf {
			return fmt.Errorf("%s %q must start with a letter and hold only letters, digits and - _ . ~ + %% (Pub/Sub's rule)", what, id)
		}
	}
	return nil
}
