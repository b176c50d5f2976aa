package main

import (
	"reflect"
	"testing"
	"time"
)

func TestTimeline(t *testing.T) {
	start := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return start.Add(time.Duration(s * float64(time.Second))) }
	tests := []struct {
		name  string
		sent  []time.Time
		lat   []time.Duration
		want  []second
		worst int // At of the worst second
	}{
		{name: "none"},
		{
			name: "seconds by publication, an empty second skipped, a stall gathered in one",
			sent: []time.Time{at(0.1), at(0.5), at(0.9), at(2.2), at(2.4), start.Add(-time.Millisecond)},
			lat:  []time.Duration{2 * time.Millisecond, 4 * time.Millisecond, 3 * time.Millisecond, 90 * time.Millisecond, 10 * time.Millisecond, time.Millisecond},
			want: []second{
				{At: 0, Events: 4, P50MS: 2, P99MS: 4, MaxMS: 4},
				{At: 2, Events: 2, P50MS: 10, P99MS: 90, MaxMS: 90},
			},
			worst: 2,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tl := &tally{start: start, latencies: tc.lat, sent: tc.sent}
			got := tl.timeline()
			if len(tc.want) == 0 && len(got) == 0 {
				return
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("timeline = %+v, want %+v", got, tc.want)
			}
			if w := worstSeconds(got, 1); len(w) != 1 || w[0].At != tc.worst {
				t.Errorf("worst second = %+v, want at %d s", w, tc.worst)
			}
			if p := tl.percentile(99); p != 90 {
				t.Errorf("p99 = %v ms, want 90", p)
			}
		})
	}
}
