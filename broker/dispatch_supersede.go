package broker

import (
	"container/list"
	"context"
	"time"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// Bounds of the dispatcher's memory of the newest event per resource key
// (supersede): at most SupersedeMaxKeys keys, and as many ids of events
// handed back for redelivery (only those can come back), each forgotten
// SupersedeMaxAge after it was last taken or settled; past the cap the
// entry touched longest ago is forgotten first. A forgotten entry only
// means a redelivery runs as it did before (nothing is superseded), so the
// bounds cost memory, never an event: about 400 bytes per key with a
// retried event's id (UUID ids), 40 MB at the cap, 4 MB for a fleet of
// 10,000 resources all failing. (Remembering every event's id, as the
// first version did, filled the cap in under 6 minutes at 300 events/s in
// the 30-minute soak: about 25 MB per replica for nothing.) When more than
// SupersedeMaxKeys events are retried within the time one waits for its
// redelivery, the older ids are forgotten first, and their redeliveries are
// superseded only by a higher generation.
const (
	SupersedeMaxKeys = 100_000
	SupersedeMaxAge  = time.Hour
)

// settledHeld is the state of a newest event taken and not settled yet
// (queued, coalesced or running).
const settledHeld = "held"

// newest is what the dispatcher remembers of the newest event it took for a
// resource key: its id, generation (as pickNewest reads it), the arrival
// sequence of its last take, how it was settled (a Settled* constant, or
// settledHeld), and whether its run found its generation to be one the
// HyperFleet API held (checked: generationHeld).
type newest struct {
	id      string
	gen     int64
	seq     uint64
	state   string
	checked bool
}

// carriesWork reports whether the newest event did its work or still will:
// acked, held, or waiting for its own redelivery. A dead-lettered or
// released one may never run again, so it supersedes nothing.
func (n newest) carriesWork() bool {
	return n.state == SettledAcked || n.state == SettledRetried || n.state == settledHeld
}

// supersedeMemory is the dispatcher's memory behind supersession: per key
// the newest event taken, and per event id the sequence of its last take.
// Callers hold the dispatcher's mutex.
//
// The newest record of a key moves forward: a take replaces it when its
// generation is at least the record's (so among equal generations the
// later arrival, as pickNewest picks), or when the record can no longer do
// the work (dead-lettered, released). The record's own event is therefore
// never superseded, and every superseded event has a newer one that ran
// successfully after it or will run again.
//
// It believes only what it can check (issue 41): a generation is the
// event's claim until its run found the API holding it (checked), and only
// a checked record supersedes a lower generation, so one event claiming
// generation 2^63-1 suppresses nothing. A fresh event (first delivery) of
// a lower generation than the record starts the record over: Sentinel
// publishes what the API holds now, so the resource went back (recreated
// under the same id) or the record was never true.
type supersedeMemory struct {
	keys   *lru[newest]
	events *lru[uint64]
	now    func() time.Time
}

func newSupersedeMemory(maxKeys int, maxAge time.Duration) *supersedeMemory {
	return &supersedeMemory{keys: newLRU[newest](maxKeys, maxAge), events: newLRU[uint64](maxKeys, maxAge), now: time.Now}
}

// take records that the dispatcher took ev (key, arrival seq; fresh: its
// first delivery) to run it.
func (s *supersedeMemory) take(key string, ev adapter.Event, seq uint64, fresh bool) {
	now, gen := s.now(), generation(ev)
	if r, ok := s.keys.get(key, now); !ok || !r.carriesWork() || gen >= r.gen || fresh {
		s.keys.put(key, newest{id: ev.ID, gen: gen, seq: seq, state: settledHeld}, now)
	}
}

// settled records how the event id of key, taken at seq, was settled:
// the key's newest state and whether its run checked its generation
// against the API, and, for an event handed back for redelivery, the seq
// of its take (supersededBy compares a newer event's with it). Only those
// ids are kept: an event settled any other way is never redelivered to
// this process, so its id would only cost memory.
func (s *supersedeMemory) settled(key, id string, seq uint64, outcome string, checked bool) {
	now := s.now()
	if r, ok := s.keys.get(key, now); ok && r.id == id {
		r.state, r.checked = outcome, checked
		s.keys.put(key, r, now)
	}
	if outcome == SettledRetried {
		s.events.put(id, seq, now)
	}
}

// supersededBy is the newest event of key that makes this redelivery of ev
// unnecessary, if any: a different event that carries the work forward and
// is newer than ev, that is of a higher generation its run checked against
// the API, or of the same generation and taken after ev's last take by
// this process (so it ran, or runs, after ev's previous delivery failed).
// A redelivery this process never took before (another replica's, or from
// before a restart) is superseded only by a higher checked generation.
func (s *supersedeMemory) supersededBy(key string, ev adapter.Event) (newest, bool) {
	now := s.now()
	r, ok := s.keys.get(key, now)
	if !ok || r.id == ev.ID || !r.carriesWork() {
		return newest{}, false
	}
	gen := generation(ev)
	if r.gen != gen {
		return r, r.gen > gen && r.checked
	}
	last, ok := s.events.get(ev.ID, now)
	return r, ok && r.seq > last
}

// supersededBy is, for a redelivery (Deliveries > 1) of ev, the newer event
// of its resource key that makes running it again unnecessary (see
// supersedeMemory.supersededBy). A first delivery is never superseded, so
// every fresh Sentinel event runs. Callers hold d.mu.
func (d *Dispatcher) supersededBy(key string, m Message, ev adapter.Event) (newest, bool) {
	if d.closing || m.Deliveries() < 2 {
		return newest{}, false
	}
	return d.mem.supersededBy(key, ev)
}

// supersede acks a superseded redelivery without running it and counts it
// (Hooks.Superseded). An ack that fails leaves the message to the broker,
// which delivers it again (and it is superseded again, or runs).
func (d *Dispatcher) supersede(m Message, ev adapter.Event, key string, by newest) {
	d.log.Info("redelivered event superseded by a newer event of its resource; acked without running",
		"event_id", ev.ID, "message_id", m.ID(), "superseded_by", by.id, "key", key,
		"deliveries", m.Deliveries(), "settled", SettledSuperseded)
	if err := m.Ack(context.Background()); err != nil {
		d.log.Error("ack failed; the broker will redeliver the message", "message_id", m.ID(), "error", err)
		return
	}
	if d.o.Hooks.Superseded != nil {
		d.o.Hooks.Superseded()
	}
}

// noteSettled records how it (the newest of its run) is settled and what
// its run found of its generation (res, nil when it did not run to the
// end), before the broker is told: a newest event being dead-lettered or
// released never supersedes a redelivery, not even in between.
func (d *Dispatcher) noteSettled(it *item, outcome string, res *adapter.Result) {
	d.mu.Lock()
	d.mem.settled(resourceKey(it.ev), it.ev.ID, it.seq, outcome, generationHeld(res))
	d.mu.Unlock()
}

// generationHeld reports whether the run found the event's generation to
// be one the HyperFleet API held: its own (current) or an older one
// (stale). Unchecked or ahead of the API, it is only the event's claim.
func generationHeld(res *adapter.Result) bool {
	if res == nil {
		return false
	}
	v := res.Generation.Verdict
	return v == adapter.GenerationCurrent || v == adapter.GenerationStale
}

// lru is a map of at most max entries, each forgotten maxAge after it was
// last put; past max the entry put longest ago is forgotten.
type lru[V any] struct {
	max    int
	maxAge time.Duration
	m      map[string]*list.Element
	order  *list.List // of *lruEntry[V], least recently put first
}

type lruEntry[V any] struct {
	key string
	val V
	at  time.Time
}

func newLRU[V any](max int, maxAge time.Duration) *lru[V] {
	return &lru[V]{max: max, maxAge: maxAge, m: map[string]*list.Element{}, order: list.New()}
}

func (c *lru[V]) get(key string, now time.Time) (V, bool) {
	var zero V
	el, ok := c.m[key]
	if !ok {
		return zero, false
	}
	e := el.Value.(*lruEntry[V])
	if now.Sub(e.at) >= c.maxAge {
		c.remove(el)
		return zero, false
	}
	return e.val, true
}

func (c *lru[V]) put(key string, v V, now time.Time) {
	if el, ok := c.m[key]; ok {
		e := el.Value.(*lruEntry[V])
		e.val, e.at = v, now
		c.order.MoveToBack(el)
	} else {
		c.m[key] = c.order.PushBack(&lruEntry[V]{key: key, val: v, at: now})
	}
	for c.order.Len() > c.max {
		c.remove(c.order.Front())
	}
	for el := c.order.Front(); el != nil && now.Sub(el.Value.(*lruEntry[V]).at) >= c.maxAge; el = c.order.Front() {
		c.remove(el)
	}
}

func (c *lru[V]) remove(el *list.Element) {
	delete(c.m, el.Value.(*lruEntry[V]).key)
	c.order.Remove(el)
}

func (c *lru[V]) len() int { return c.order.Len() }
