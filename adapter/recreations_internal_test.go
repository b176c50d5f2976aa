package adapter

import (
	"fmt"
	"testing"
	"time"
)

// The memory of pending recreations is bounded in time and size: an entry
// older than RecreationMemory does not count, a full memory evicts expired
// entries first and otherwise remembers nothing new.
func TestRecreationMemoryIsBounded(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	k := BundleKey{Consumer: "c1", Name: "w"}
	tests := []struct {
		name   string
		fill   time.Time // when MaxRecreations other entries were noted; zero: none
		noteAt time.Time
		takeAt time.Time
		want   bool
	}{
		{"taken within memory", time.Time{}, t0, t0.Add(RecreationMemory), true},
		{"too old", time.Time{}, t0, t0.Add(RecreationMemory + time.Second), false},
		{"full of live entries: not remembered", t0, t0.Add(time.Minute), t0.Add(2 * time.Minute), false},
		{"full of expired entries: evicted, remembered", t0, t0.Add(2 * RecreationMemory), t0.Add(2*RecreationMemory + time.Minute), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs := newRecreations()
			if !tt.fill.IsZero() {
				for i := range MaxRecreations {
					rs.note(BundleKey{Consumer: "c1", Name: fmt.Sprint(i)}, tt.fill)
				}
			}
			rs.note(k, tt.noteAt)
			if got := rs.take(k, tt.takeAt); got != tt.want {
				t.Errorf("take = %v, want %v", got, tt.want)
			}
			if rs.take(k, tt.takeAt) {
				t.Error("taken twice")
			}
		})
	}
}
