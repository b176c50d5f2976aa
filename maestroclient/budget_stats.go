package maestroclient

import workv1 "open-cluster-management.io/api/work/v1"

// WriteBudgetStats is a snapshot of a Pool's write budget over every
// consumer (per-consumer figures would be a metric series per cluster).
type WriteBudgetStats struct {
	// Outstanding is the writes sent and not yet reported by their agent
	// (adaptive mode with a status stream; 0 otherwise).
	Outstanding int
	// MaxRate is the highest per-consumer rate now, in writes per
	// second: the floor (or fixed rate) when no consumer is above it.
	MaxRate float64
	// Backoffs counts the times a consumer's rate was lowered because its
	// agent fell behind.
	Backoffs uint64
}

// WriteBudgetStats reports the write budget shared by the Pool's Clients.
// Writes outstanding past their timeout are dropped first.
func (p *Pool) WriteBudgetStats() WriteBudgetStats { return p.writes.stats() }

func (b *budget) stats() WriteBudgetStats {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	s := WriteBudgetStats{MaxRate: b.perSecond, Backoffs: b.backoffs}
	for _, k := range b.consumers {
		if k.drain.writes > 0 {
			b.expire(k, now)
		}
		s.MaxRate = max(s.MaxRate, k.rate)
	}
	s.Outstanding = b.outstanding
	return s
}

// teeStatus hands the status stream to the write budget, then to next.
type teeStatus struct {
	budget *budget
	next   StatusSink
}

func (t teeStatus) Subscribed() {
	t.budget.Subscribed()
	t.next.Subscribed()
}

func (t teeStatus) Status(work *workv1.ManifestWork) {
	t.budget.Status(work)
	t.next.Status(work)
}

// withBudgetStatus makes opts' status stream, when there is one, feed the
// write budget too.
func withBudgetStatus(opts Options, b *budget) Options {
	if opts.Status != nil {
		opts.Status = teeStatus{budget: b, next: opts.Status}
	}
	return opts
}
