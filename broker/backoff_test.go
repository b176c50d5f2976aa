package broker

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// The redelivery delay never exceeds 10 minutes, never overflows and never
// shrinks, whatever MaxBackoff a caller passes and however many deliveries.
func TestRedeliveryBackoffIsCapped(t *testing.T) {
	for _, max := range []time.Duration{0, time.Minute, 1 << 62, math.MaxInt64} {
		d, err := NewDispatcher(DispatcherOptions{Process: func(context.Context, adapter.Event) *adapter.Result { return nil },
			Decode: func(Message) (adapter.Event, error) { return adapter.Event{}, nil }, MinBackoff: time.Second, MaxBackoff: max})
		if err != nil {
			t.Fatal(err)
		}
		prev := time.Duration(0)
		for _, n := range []int{1, 2, 10, 33, 34, 40, 64, 100, 1 << 20, math.MaxInt} {
			delay := d.backoff(n)
			if delay <= 0 || delay > MaxBackoff || delay < prev {
				t.Fatalf("max %s, delivery %d: delay %s (previous %s), want in (0, 10m], growing", max, n, delay, prev)
			}
			prev = delay
		}
	}
}

// Reconnect backoffs double without overflowing past any maximum.
func TestNextBackoffNeverOverflows(t *testing.T) {
	tests := []struct{ cur, max, want time.Duration }{
		{time.Second, time.Minute, 2 * time.Second},
		{40 * time.Second, time.Minute, time.Minute},
		{1 << 62, math.MaxInt64, math.MaxInt64},
		{math.MaxInt64, math.MaxInt64, math.MaxInt64},
		{0, time.Minute, time.Minute},
	}
	for _, tt := range tests {
		if got := NextBackoff(tt.cur, tt.max); got != tt.want {
			t.Errorf("NextBackoff(%s, %s) = %s, want %s", tt.cur, tt.max, got, tt.want)
		}
	}
}
