// Package brokertest holds the delivery-contract scenarios every
// broker.Consumer must pass, written once and run against each broker: the
// machine's RabbitMQ (broker/rabbitmq) and Pub/Sub on pstest
// (broker/pubsub), as maestroclient/contract does for Maestro. A broker's
// test runs them with Run and a Harness for its broker; what only one
// broker does (RabbitMQ's retry queues and forced connection closes,
// Pub/Sub's dead-letter policy and held retries) stays in that broker's
// own tests.
//
// Each scenario gets a Harness of its own (a fresh topic or server), so
// scenarios never see each other's messages.
package brokertest

import (
	"testing"
	"time"

	"github.com/bundle-adapter/bundle-adapter/broker"
)

// Harness gives the scenarios one broker, with one topic of their own.
type Harness interface {
	// Consumer returns a new consumer of the scenario's topic with
	// subscription id subscription, set for tests (short reconnect and
	// retry backoffs, a drain timeout of a few seconds). The scenario runs
	// and stops it; the harness releases it when t ends.
	Consumer(t *testing.T, subscription string) broker.Consumer
	// Publish sends every body, each with attrs (AMQP headers, Pub/Sub
	// attributes), to the scenario's topic, in one batch where the broker
	// batches, and returns the ids the consumers will see as ID().
	Publish(t *testing.T, attrs map[string]string, bodies ...string) []string
	// PublishSentinel sends f exactly as HyperFleet's Sentinel publishes it
	// on this broker (no message id or content type where the broker has
	// them, its headers as attributes).
	PublishSentinel(t *testing.T, f SentinelMessage)
	// Remaining is how many messages of the subscription are neither acked
	// nor dead-lettered. While a consumer runs, a broker may leave out the
	// messages handed to it (RabbitMQ counts only ready ones); scenarios
	// that need those counted ask once their consumers stopped.
	Remaining(t *testing.T, subscription string) int
	// DeadLetters returns the messages dead-lettered from subscription since
	// the previous call, without waiting.
	DeadLetters(t *testing.T, subscription string) []Delivered
	// CheckDeadLetter checks what the broker itself adds to d, the
	// dead-lettered copy of m (the scenario checks the body, the reason and
	// m's own attributes).
	CheckDeadLetter(t *testing.T, m broker.Message, subscription string, d Delivered)
	// ErrSettled is the error (errors.Is) settling a message a second time
	// returns.
	ErrSettled() error
}

// Delivered is a message read from a destination other than the
// consumer's (the dead-letter queue or topic).
type Delivered struct {
	ID         string
	Body       []byte
	Attributes map[string]string // headers or attributes, as strings
	// Raw is the broker's own form (amqp.Delivery, *pubsub.Message), for
	// CheckDeadLetter.
	Raw any
}

// Timeout bounds every wait of a scenario for a message or an effect.
const Timeout = 15 * time.Second

// Scenario is one behavioural check of the delivery contract.
type Scenario struct {
	Name string
	Run  func(t *testing.T, h Harness)
}

// Scenarios lists every scenario Run runs, in order.
var Scenarios = []Scenario{
	{"AckRemovesMessage", ackRemovesMessage},
	{"RetryRedeliversAfterDelay", retryRedeliversAfterDelay},
	{"ReleaseRedelivers", releaseRedelivers},
	{"DeadLetterStoresReason", deadLetterStoresReason},
	{"SameSubscriptionCompetes", sameSubscriptionCompetes},
	{"SubscriptionsEachGetEveryEvent", subscriptionsEachGetEveryEvent},
	{"ShutdownWaitsForOutstandingMessages", shutdownWaitsForOutstanding},
	{"DeliveryContract", deliveryContract},
	{"OversizedEventDeadLetteredAtOnce", oversizedEventDeadLettered},
	{"SentinelMessageAcceptedAsIs", sentinelMessageAccepted},
}

// Run runs every scenario as a subtest of t, each with the Harness
// newHarness returns for it.
func Run(t *testing.T, newHarness func(t *testing.T) Harness) {
	t.Helper()
	for _, sc := range Scenarios {
		t.Run(sc.Name, func(t *testing.T) { sc.Run(t, newHarness(t)) })
	}
}
