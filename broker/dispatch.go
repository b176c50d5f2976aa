package broker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// DispatcherOptions configures a Dispatcher. Process is required.
type DispatcherOptions struct {
	// Process runs the pipeline for one event (adapter.Pipeline.Run).
	Process func(context.Context, adapter.Event) *adapter.Result
	// Decode turns a message into an event (Decode); required.
	Decode func(Message) (adapter.Event, error)
	// Workers is how many events run at once; default 4.
	Workers int
	// MaxDeliveries bounds redeliveries of a failing event before it is
	// dead-lettered; default 5.
	MaxDeliveries int
	// MinBackoff and MaxBackoff bound the redelivery delay, which doubles
	// with every delivery; defaults 1s and 1m. MaxBackoff is capped at
	// MaxBackoff (the constant), and MinBackoff at MaxBackoff.
	MinBackoff, MaxBackoff time.Duration
	// MaxQueuedMessages and MaxQueuedBytes bound the messages (and their
	// bodies' bytes) the dispatcher holds between Handle and their
	// settlement, running ones included; defaults DefaultMaxQueuedMessages
	// and DefaultMaxQueuedBytes. Past either, Handle waits for room: the
	// consumer stops taking deliveries and the broker keeps the rest
	// (back-pressure), whatever its prefetch. A message larger than
	// MaxQueuedBytes is taken when nothing else is held.
	MaxQueuedMessages int
	MaxQueuedBytes    int
	// EventTimeout is the deadline of one event's whole run (Process's
	// context); default DefaultEventTimeout. A run past it is cancelled and
	// its message redelivered (dead-lettered at MaxDeliveries), with an
	// error naming broker.subscriber.event_timeout.
	EventTimeout time.Duration
	// Hooks observe outcomes (metrics); optional.
	Hooks Hooks
	// Logger defaults to slog.Default().
	Logger *slog.Logger
	// Tracer, when set, runs every event in a span (SpanEvent) that
	// continues the event's traceparent; Process's context carries it. Nil
	// (the default): no span.
	Tracer trace.Tracer
}

// Defaults of DispatcherOptions.MaxQueuedMessages and MaxQueuedBytes: far
// more than the workers can run at once, far less than a broker's prefetch
// may deliver (Pub/Sub: 1,000 messages of up to 1 MiB).
const (
	DefaultMaxQueuedMessages = 256
	DefaultMaxQueuedBytes    = 64 << 20
)

// DefaultEventTimeout is DispatcherOptions.EventTimeout's default: far more
// than an event needs (a few reads and writes, each bounded by its client's
// timeout and retries), far less than RabbitMQ's consumer_timeout (30m),
// past which the broker closes the channel of an unacknowledged delivery.
const DefaultEventTimeout = 5 * time.Minute

// Hooks are called as events settle; any may be nil.
type Hooks struct {
	// Received is called for every message Handle takes, before anything
	// else is done with it; malformed is true when it does not decode into
	// an event (it is dead-lettered). hyperfleet-broker counts the same
	// two things on receipt (messages consumed, conversion errors).
	Received func(malformed bool)
	// Processed is called after every pipeline run with its duration and
	// what was done with the message.
	Processed func(res *adapter.Result, took time.Duration, outcome string)
	// Redelivered is called when a message is handed back for redelivery.
	Redelivered func()
	// DeadLettered is called when a message is dead-lettered.
	DeadLettered func(reason string)
	// Superseded is called when a redelivered message is acked without
	// running because a newer event of its resource was taken (supersede).
	Superseded func()
}

// What was done with a message (how it was settled), as passed to
// Hooks.Processed and counted by bundle_adapter_events_total{outcome}.
const (
	SettledAcked        = "acked"
	SettledRetried      = "retried"
	SettledDeadLettered = "dead_lettered"
	SettledReleased     = "released"
	// SettledSuperseded is a redelivery acked without running because a
	// newer event of its resource was taken (supersede): in logs only, and
	// counted by Hooks.Superseded, never passed to Hooks.Processed.
	SettledSuperseded = "superseded"
)

// Dispatcher runs events from a Consumer through the pipeline with a fixed
// number of workers. Events for the same resource key (data kind and id)
// never run concurrently; a burst of events for one key that arrives while
// one of them runs is coalesced into one run with the newest generation, and
// all of them are settled after it. A redelivery that a newer event of its
// key already carries forward is acked without running (supersededBy): the
// dispatcher remembers the newest event per key, within SupersedeMaxKeys and
// SupersedeMaxAge.
type Dispatcher struct {
	o   DispatcherOptions
	log *slog.Logger

	mu       sync.Mutex
	cond     *sync.Cond
	keys     map[string]*keyState
	ready    []string // keys with pending work and no running worker
	closing  bool
	inflight int

	// room wakes Handle calls waiting for the held messages to drop below
	// the bounds; held and heldBytes count messages from Handle to their
	// settlement.
	room      *sync.Cond
	held      int
	heldBytes int

	// mem remembers the newest event taken per resource key, for
	// superseding redeliveries; guarded by mu.
	mem *supersedeMemory
}

type keyState struct {
	pending []*item
	running bool
	queued  bool
}

// item is one decoded message waiting for (or in) a run.
type item struct {
	msg Message
	ev  adapter.Event
	seq uint64
}

// NewDispatcher applies defaults; call Run to start the workers.
func NewDispatcher(o DispatcherOptions) (*Dispatcher, error) {
	if o.Process == nil || o.Decode == nil {
		return nil, errors.New("broker: DispatcherOptions.Process and Decode are required")
	}
	if o.Workers < 1 {
		o.Workers = 4
	}
	if o.MaxDeliveries < 1 {
		o.MaxDeliveries = 5
	}
	if o.MinBackoff <= 0 {
		o.MinBackoff = time.Second
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = time.Minute
	}
	o.MaxBackoff = min(o.MaxBackoff, MaxBackoff)
	o.MinBackoff = min(o.MinBackoff, o.MaxBackoff)
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.EventTimeout <= 0 {
		o.EventTimeout = DefaultEventTimeout
	}
	if o.MaxQueuedMessages < 1 {
		o.MaxQueuedMessages = DefaultMaxQueuedMessages
	}
	if o.MaxQueuedBytes < 1 {
		o.MaxQueuedBytes = DefaultMaxQueuedBytes
	}
	d := &Dispatcher{o: o, log: o.Logger, keys: map[string]*keyState{}, mem: newSupersedeMemory(SupersedeMaxKeys, SupersedeMaxAge)}
	d.cond = sync.NewCond(&d.mu)
	d.room = sync.NewCond(&d.mu)
	return d, nil
}

var seqCounter struct {
	sync.Mutex
	n uint64
}

func nextSeq() uint64 {
	seqCounter.Lock()
	defer seqCounter.Unlock()
	seqCounter.n++
	return seqCounter.n
}

// Handle accepts a message from a Consumer: a malformed message is
// dead-lettered at once, a redelivery that a newer event of its resource
// supersedes is acked without running (supersededBy), any other is queued
// under its resource key. It
// waits only while the dispatcher holds MaxQueuedMessages or MaxQueuedBytes
// (back-pressure), never for a pipeline run of its own. After Shutdown
// began, messages are released, waiting ones included.
func (d *Dispatcher) Handle(m Message) {
	ev, err := d.o.Decode(m)
	if d.o.Hooks.Received != nil {
		d.o.Hooks.Received(err != nil)
	}
	if err != nil {
		d.deadLetter(context.Background(), m, nil, "malformed: "+err.Error())
		return
	}
	key := resourceKey(ev)
	size := len(m.Body())
	d.mu.Lock()
	if by, ok := d.supersededBy(key, m, ev); ok {
		d.mu.Unlock()
		d.supersede(m, ev, key, by)
		return
	}
	for !d.closing && d.full(size) {
		d.room.Wait()
	}
	if d.closing {
		d.mu.Unlock()
		d.release(context.Background(), m)
		return
	}
	d.held++
	d.heldBytes += size
	ks := d.keys[key]
	if ks == nil {
		ks = &keyState{}
		d.keys[key] = ks
	}
	seq := nextSeq()
	d.mem.take(key, ev, seq, m.Deliveries() < 2)
	ks.pending = append(ks.pending, &item{msg: m, ev: ev, seq: seq})
	d.markReady(key, ks)
	d.mu.Unlock()
}

// full reports whether taking a message of size bytes would pass a bound.
// Callers hold d.mu.
func (d *Dispatcher) full(size int) bool {
	if d.held == 0 {
		return false
	}
	return d.held >= d.o.MaxQueuedMessages || d.heldBytes+size > d.o.MaxQueuedBytes
}

// settled gives back the room of msgs. Callers hold d.mu.
func (d *Dispatcher) settled(msgs []Message) {
	for _, m := range msgs {
		d.held--
		d.heldBytes -= len(m.Body())
	}
	d.room.Broadcast()
}

// markReady queues key for a worker unless one runs it or it is queued.
// Callers hold d.mu.
func (d *Dispatcher) markReady(key string, ks *keyState) {
	if ks.running || ks.queued || len(ks.pending) == 0 {
		return
	}
	ks.queued = true
	d.ready = append(d.ready, key)
	d.cond.Signal()
}

// resourceKey identifies the resource an event is about: data kind and id
// (a cluster, a nodepool), falling back to the CloudEvent id.
func resourceKey(ev adapter.Event) string {
	id, _ := ev.Data["id"].(string)
	if id == "" {
		return "event/" + ev.ID
	}
	kind, _ := ev.Data["kind"].(string)
	return fmt.Sprintf("%s/%s", kind, id)
}
