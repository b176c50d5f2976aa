// Package rabbitmq is the RabbitMQ (AMQP 0-9-1) broker.Consumer, with the
// delivery contract of package broker.
//
// # Topology
//
// Every connect declares, idempotently (durable, never auto-deleted unless
// said):
//
//   - the exchange Options.Exchange (default the topic) of
//     Options.ExchangeType (default fanout), as hyperfleet-broker declares
//     it. When it exists with another type or settings, it is used as it is
//     declared and a warning names both types: the exchange belongs to
//     whoever declared it first (Sentinel, usually);
//   - the queue "<topic>-<subscription_id>" ("<queue>-<subscription_id>"
//     with Options.Queue) bound to it with Options.RoutingKey (default "#"
//     on a topic exchange, empty on the others). Replicas sharing a subscription id share the queue
//     and compete for its messages; every subscription id gets its own queue
//     and so every event;
//   - the queue "<queue>.dead-letter", where DeadLetter puts messages with
//     the header x-dead-letter-reason. Nothing consumes it: an operator
//     inspects, moves or purges it.
//
// Retry uses delay queues "<queue>.retry.<N>s", declared when first needed:
// N is the requested delay rounded up to a power of two seconds (1s, 2s, 4s,
// ... 65536s), the queue's message TTL. An expired message is dead-lettered
// back into "<queue>" through the default exchange, so it reaches this
// subscription only. One TTL per queue keeps expiry first-in first-out: a
// long delay never holds up a short one. A delay queue deletes itself an
// hour after its last use (x-expires), always after its last message left.
//
// # Delivery count
//
// Message.Deliveries is the header x-bundle-adapter-deliveries (1 when
// absent) that Retry sets on the copy it publishes, plus the broker's
// redeliveries of this copy: the x-delivery-count header where the queue
// provides it (quorum queues), else one more when the Redelivered flag is
// set (a crash, a closed channel or Release; the flag cannot tell how many).
//
// # Settling
//
// Settling never loses a message: Retry and DeadLetter publish their copy
// with the mandatory flag, wait for the publisher confirm, and only then ack
// the original. When that fails they requeue the original instead (the
// broker redelivers it at once) and return an error. A message received on
// a connection that has since closed cannot be settled any more: every
// settle method returns an error and RabbitMQ redelivers it to the next
// consumer. A copy stored just before its original's ack failed makes a
// duplicate, never a loss.
package rabbitmq
