package pubsub

import (
	"sync"
	"time"
)

// held are messages Retry keeps until their delay passed, then nacks. Once
// stopped (Consume's context done) it nacks at once.
type held struct {
	mu      sync.Mutex
	timers  map[*Message]*time.Timer
	stopped bool
}

func newHeld() *held { return &held{timers: map[*Message]*time.Timer{}} }

// hold nacks m after delay (at once when stopped).
func (h *held) hold(m *Message, delay time.Duration) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.stopped || delay <= 0 {
		m.msg.Nack()
		return
	}
	h.timers[m] = time.AfterFunc(delay, func() { h.release(m) })
}

// release nacks m unless another path did already.
func (h *held) release(m *Message) {
	h.mu.Lock()
	_, ok := h.timers[m]
	delete(h.timers, m)
	h.mu.Unlock()
	if ok {
		m.msg.Nack()
	}
}

// start holds messages again after a stop.
func (h *held) start() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.stopped = false
}

// stop nacks every held message now, and later ones at once.
func (h *held) stop() {
	h.mu.Lock()
	h.stopped = true
	timers := h.timers
	h.timers = map[*Message]*time.Timer{}
	h.mu.Unlock()
	for m, t := range timers {
		t.Stop()
		m.msg.Nack()
	}
}

// len is the number of messages held.
func (h *held) len() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.timers)
}
