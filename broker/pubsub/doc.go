// Package pubsub is the Google Cloud Pub/Sub broker.Consumer, with the
// delivery contract of package broker.
//
// # Resources
//
// The subscription "<subscription_id>" (or Options.Subscription)
// on Options.Topic: replicas
// sharing a subscription id compete for its messages; every subscription id
// gets its own subscription and so every event. New creates it when missing
// (and the topic when missing), with Options.AckDeadline, a dead-letter
// policy (Options.DeadLetterTopic after Options.MaxDeliveries attempts) and
// a retry policy (Options.MinBackoff to Options.MaxBackoff), and the
// retention, expiration and ordering Options give; a topic it creates gets
// Options.TopicRetention. An existing subscription is used as it is. The dead-letter topic, default
// "<subscription_id>-dlq" (hyperfleet-broker's names), and a subscription of the same
// name on it (a topic without subscriptions drops what it receives) are
// created when missing too. With Options.DoNotCreateTopicIfMissing or
// Options.DoNotCreateSubscriptionIfMissing (hyperfleet-broker's
// create_*_if_missing: false) New creates nothing of that kind and refuses
// to start, naming what is missing.
//
// # Delivery count
//
// Message.Deliveries is Pub/Sub's delivery attempt, which the service
// counts only on subscriptions with a dead-letter policy (every nack and
// every expired lease adds one, on any replica). On a subscription without
// one it is this process's own count of the deliveries of the message id
// (the last 10000 ids): deliveries to other replicas are not counted, so a
// failing message may be tried up to MaxDeliveries times per replica before
// the dispatcher dead-letters it.
//
// # Settling
//
// The v2 client does not let a subscriber change one message's ack
// deadline, so Retry holds the message (the client keeps extending its
// lease) for the delay and then nacks it: Pub/Sub redelivers it after the
// subscription's retry-policy backoff, so the delay is a lower bound. Held
// messages count against MaxOutstandingMessages. When Consume's context is
// done, held messages are nacked at once.
//
// DeadLetter publishes a copy to the dead-letter topic with the attribute
// x-dead-letter-reason, waits for the publish result, then acks; when the
// publish fails the message is nacked (redelivered) and an error returned.
package pubsub
