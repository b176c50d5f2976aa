package main

import (
	"slices"
	"time"
)

// second is one second of a phase, by when its events were published: how
// many were and their latencies. The per-second rows show whether a tail is
// spread over the phase (queueing) or gathered in a few seconds (a stall:
// a collection, a resync, a neighbour's burst).
type second struct {
	At     int     `json:"at_s"` // seconds from the phase's start
	Events int     `json:"events"`
	P50MS  float64 `json:"p50_ms"`
	P99MS  float64 `json:"p99_ms"`
	MaxMS  float64 `json:"max_ms"`
}

// timeline is the phase's latencies by second of publication.
func (t *tally) timeline() []second {
	t.mu.Lock()
	defer t.mu.Unlock()
	var by [][]time.Duration
	for i, l := range t.latencies {
		s := max(0, int(t.sent[i].Sub(t.start)/time.Second))
		for len(by) <= s {
			by = append(by, nil)
		}
		by[s] = append(by[s], l)
	}
	out := make([]second, 0, len(by))
	for s, ls := range by {
		if len(ls) == 0 {
			continue
		}
		slices.Sort(ls)
		out = append(out, second{At: s, Events: len(ls), P50MS: ms(rank(ls, 50)), P99MS: ms(rank(ls, 99)), MaxMS: ms(ls[len(ls)-1])})
	}
	return out
}

// rank is the p-th percentile of sorted (nearest rank).
func rank(sorted []time.Duration, p float64) time.Duration {
	i := int(p/100*float64(len(sorted))+0.5) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// worstSeconds are the n seconds of tl with the highest p99, worst first.
func worstSeconds(tl []second, n int) []second {
	s := slices.Clone(tl)
	slices.SortStableFunc(s, func(a, b second) int {
		switch {
		case a.P99MS > b.P99MS:
			return -1
		case a.P99MS < b.P99MS:
			return 1
		}
		return 0
	})
	return s[:min(n, len(s))]
}
