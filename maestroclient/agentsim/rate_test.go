package agentsim

import (
	"context"
	"strings"
	"testing"
	"time"
)

// The pacer spaces applies 1/rate apart from the first, never bunches the
// ones that waited, and does not wait at all without a rate.
func TestPacerReserve(t *testing.T) {
	t0 := time.Unix(1000, 0)
	tests := []struct {
		name string
		rate float64
		at   []time.Duration // when each apply asks, from t0
		want []time.Duration // how long each waits
	}{
		{name: "no rate", rate: 0, at: []time.Duration{0, 0, 0}, want: []time.Duration{0, 0, 0}},
		{name: "a burst at 10/s", rate: 10, at: []time.Duration{0, 0, 0},
			want: []time.Duration{0, 100 * time.Millisecond, 200 * time.Millisecond}},
		{name: "idle time is not saved up", rate: 10, at: []time.Duration{0, time.Second, time.Second},
			want: []time.Duration{0, 0, 100 * time.Millisecond}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newPacer(tt.rate)
			for i, at := range tt.at {
				if got := p.reserve(t0.Add(at)); got != tt.want[i] {
					t.Errorf("apply %d at %v waits %v, want %v", i, at, got, tt.want[i])
				}
			}
		})
	}
}

// A negative apply rate is refused before connecting.
func TestStartRefusesNegativeApplyRate(t *testing.T) {
	_, err := Start(context.Background(), Options{Consumer: "c1", ApplyRate: -1})
	if err == nil || !strings.Contains(err.Error(), "ApplyRate") {
		t.Fatalf("Start(ApplyRate -1) = %v, want an error naming ApplyRate", err)
	}
}

func TestStartRefusesNegativeWorkers(t *testing.T) {
	_, err := Start(context.Background(), Options{Consumer: "c1", Workers: -1})
	if err == nil || !strings.Contains(err.Error(), "Workers") {
		t.Fatalf("Start(Workers -1) = %v, want an error naming Workers", err)
	}
}
