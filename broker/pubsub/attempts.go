package pubsub

import "sync"

// maxCountedIDs bounds the fallback delivery counter.
const maxCountedIDs = 10000

// attemptCounter counts deliveries per message id in this process, for
// subscriptions where Pub/Sub does not (no dead-letter policy). The ids
// first seen longest ago are forgotten first.
type attemptCounter struct {
	mu     sync.Mutex
	counts map[string]attempts
	order  []attemptsKey // first sightings, oldest first
	seq    uint64
}

type attempts struct {
	n   int
	seq uint64
}

type attemptsKey struct {
	id  string
	seq uint64
}

func newAttemptCounter() *attemptCounter {
	return &attemptCounter{counts: map[string]attempts{}}
}

// delivered records one more delivery of id and returns the count.
func (a *attemptCounter) delivered(id string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	e, ok := a.counts[id]
	if !ok {
		a.evict()
		a.seq++
		e.seq = a.seq
		a.order = append(a.order, attemptsKey{id, e.seq})
	}
	e.n++
	a.counts[id] = e
	return e.n
}

// forget drops id once its message is gone for good.
func (a *attemptCounter) forget(id string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.counts, id)
}

// evict makes room for one id. Entries of forgotten ids leave order here.
func (a *attemptCounter) evict() {
	for len(a.order) > 0 && (len(a.counts) >= maxCountedIDs || len(a.order) >= 2*maxCountedIDs) {
		oldest := a.order[0]
		a.order = a.order[1:]
		if a.counts[oldest.id].seq == oldest.seq {
			delete(a.counts, oldest.id)
		}
	}
}
