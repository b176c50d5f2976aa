package pubsub

import (
	"maps"
	"sync/atomic"

	"cloud.google.com/go/pubsub/v2"

	"github.com/bundle-adapter/bundle-adapter/broker"
)

// Message is one delivery from the subscription. It implements
// broker.Message; see the package documentation for the delivery count and
// what each settle method does.
type Message struct {
	msg        *pubsub.Message
	c          *Consumer
	deliveries int
	settled    atomic.Bool
	done       chan struct{} // closed once a settle finished
}

var _ broker.Message = (*Message)(nil)

// newMessage counts the delivery: Pub/Sub's attempt, else this process's.
func (c *Consumer) newMessage(pm *pubsub.Message) *Message {
	m := &Message{msg: pm, c: c, done: make(chan struct{})}
	c.inflight.Add(1)
	c.mu.Lock()
	c.unsettled[m] = struct{}{}
	c.mu.Unlock()
	if pm.DeliveryAttempt != nil && *pm.DeliveryAttempt > 0 {
		m.deliveries = *pm.DeliveryAttempt
	} else {
		m.deliveries = c.attempts.delivered(pm.ID)
	}
	return m
}

// ID is the Pub/Sub message id.
func (m *Message) ID() string { return m.msg.ID }

// Body is the message data.
func (m *Message) Body() []byte { return m.msg.Data }

// Attributes are the message attributes (a copy).
func (m *Message) Attributes() map[string]string { return maps.Clone(m.msg.Attributes) }

// Deliveries is Pub/Sub's delivery attempt (1 on the first delivery), or
// this process's count where the subscription has no dead-letter policy.
func (m *Message) Deliveries() int { return m.deliveries }
