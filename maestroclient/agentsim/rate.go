package agentsim

import (
	"context"
	"sync"
	"time"
)

// pacer spaces the agent's applies 1/rate apart (Options.ApplyRate): an
// agent that applies at a stated rate, to measure a source against an
// agent that keeps up, or does not. Idle time is not saved up as a burst.
type pacer struct {
	interval time.Duration // 0: no limit

	mu   sync.Mutex
	next time.Time // the earliest time of the next apply
}

func newPacer(rate float64) *pacer {
	if rate <= 0 {
		return &pacer{}
	}
	return &pacer{interval: time.Duration(float64(time.Second) / rate)}
}

// reserve books the next apply slot for a caller asking at now and returns
// how long it must wait for it.
func (p *pacer) reserve(now time.Time) time.Duration {
	if p.interval == 0 {
		return 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	at := p.next
	if at.Before(now) {
		at = now
	}
	p.next = at.Add(p.interval)
	return at.Sub(now)
}

// wait blocks until the caller's apply slot; it returns ctx's error when
// ctx ends first.
func (p *pacer) wait(ctx context.Context) error {
	d := p.reserve(time.Now())
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Applied is how many bundle generations this agent has reported applied
// since it started.
func (a *Agent) Applied() int64 { return a.applied.Load() }
