package broker

import (
	"context"
	"fmt"
	"time"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// settle applies the delivery contract to the message whose event ran.
func (d *Dispatcher) settle(ctx context.Context, abandoned bool, it *item, res *adapter.Result) string {
	m := it.msg
	if abandoned {
		d.noteSettled(it, SettledReleased, nil)
		d.release(ctx, m)
		return SettledReleased
	}
	switch res.Disposition() {
	case adapter.Ack:
		d.noteSettled(it, SettledAcked, res)
		d.ack(ctx, m)
		return SettledAcked
	case adapter.DeadLetter:
		d.noteSettled(it, SettledDeadLettered, res)
		d.deadLetter(ctx, m, res, "invalid event: "+res.Err().Error())
		return SettledDeadLettered
	}
	if m.Deliveries() >= d.o.MaxDeliveries {
		d.noteSettled(it, SettledDeadLettered, res)
		d.deadLetter(ctx, m, res, fmt.Sprintf("failed %d deliveries, last error: %v", m.Deliveries(), res.Err()))
		return SettledDeadLettered
	}
	d.noteSettled(it, SettledRetried, res)
	delay := d.backoff(m.Deliveries())
	d.log.Warn("event failed, redelivering", "event_id", it.ev.ID, "message_id", m.ID(),
		"deliveries", m.Deliveries(), "delay", delay, "error", res.Err())
	if err := m.Retry(ctx, delay); err != nil {
		d.log.Error("cannot hand the message back for redelivery; the broker redelivers it", "message_id", m.ID(), "error", err)
	}
	if d.o.Hooks.Redelivered != nil {
		d.o.Hooks.Redelivered()
	}
	return SettledRetried
}

// backoff doubles from MinBackoff with every delivery, capped at MaxBackoff.
func (d *Dispatcher) backoff(deliveries int) time.Duration {
	delay := d.o.MinBackoff
	for i := 1; i < deliveries && delay < d.o.MaxBackoff; i++ {
		delay = NextBackoff(delay, d.o.MaxBackoff)
	}
	return min(delay, d.o.MaxBackoff)
}

func (d *Dispatcher) ack(ctx context.Context, m Message) {
	if err := m.Ack(ctx); err != nil {
		d.log.Error("ack failed; the broker will redeliver the message", "message_id", m.ID(), "error", err)
	}
}

func (d *Dispatcher) release(ctx context.Context, m Message) {
	if err := m.Release(ctx); err != nil {
		d.log.Error("release failed; the broker will redeliver the message", "message_id", m.ID(), "error", err)
	}
}

func (d *Dispatcher) deadLetter(ctx context.Context, m Message, res *adapter.Result, reason string) {
	attrs := []any{"message_id", m.ID(), "reason", reason}
	if res != nil {
		attrs = append(attrs, "event_id", res.Event.ID)
	}
	d.log.Error("dead-lettering message", attrs...)
	if err := m.DeadLetter(ctx, reason); err != nil {
		d.log.Error("dead-letter failed; the broker will redeliver the message", "message_id", m.ID(), "error", err)
		return
	}
	if d.o.Hooks.DeadLettered != nil {
		d.o.Hooks.DeadLettered(reason)
	}
}

// releasePending gives every queued message back to the broker.
func (d *Dispatcher) releasePending() {
	d.mu.Lock()
	var msgs []Message
	for key, ks := range d.keys {
		for _, it := range ks.pending {
			msgs = append(msgs, it.msg)
			d.mem.settled(key, it.ev.ID, it.seq, SettledReleased, false)
		}
		ks.pending = nil
		if !ks.running {
			delete(d.keys, key)
		}
	}
	d.ready = nil
	d.settled(msgs)
	d.mu.Unlock()
	for _, m := range msgs {
		d.release(context.Background(), m)
	}
}
