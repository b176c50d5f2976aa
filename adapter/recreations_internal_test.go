package adapter

import (
	"fmt"
	"testing"
	"time"
)

// The memory of pending recreations is bounded in time and size: an entry
// older than RecreationMemory does not count, a full memory evicts expired
// entries first and otherwise remembers nothing new. It keeps the
// fingerprint of the bundle being deleted, also when a later note did not
// observe it, and forgets the entry when told.
func TestRecreationMemoryIsBounded(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	k := BundleKey{Consumer: "c1", Name: "w"}
	tests := []struct {
		name   string
		fill   time.Time // when MaxRecreations other entries were noted; zero: none
		noteAt time.Time
		again  bool // noted again at noteAt without a fingerprint
		takeAt time.Time
		want   bool
	}{
		{"taken within memory", time.Time{}, t0, false, t0.Add(RecreationMemory), true},
		{"noted again without a fingerprint: the first one kept", time.Time{}, t0, true, t0.Add(time.Minute), true},
		{"too old", time.Time{}, t0, false, t0.Add(RecreationMemory + time.Second), false},
		{"full of live entries: not remembered", t0, t0.Add(time.Minute), false, t0.Add(2 * time.Minute), false},
		{"full of expired entries: evicted, remembered", t0, t0.Add(2 * RecreationMemory), false, t0.Add(2*RecreationMemory + time.Minute), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs := newRecreations()
			if !tt.fill.IsZero() {
				for i := range MaxRecreations {
					rs.note(BundleKey{Consumer: "c1", Name: fmt.Sprint(i)}, tt.fill, "fp-other")
				}
			}
			rs.note(k, tt.noteAt, "fp-old")
			if tt.again {
				rs.note(k, tt.noteAt, "")
			}
			fp, got := rs.seen(k, tt.takeAt)
			if got != tt.want {
				t.Errorf("seen = %v, want %v", got, tt.want)
			}
			if got && fp != "fp-old" {
				t.Errorf("seen with fingerprint %q, want fp-old", fp)
			}
			rs.forget(k)
			if _, got := rs.seen(k, tt.takeAt); got {
				t.Error("seen after forget")
			}
		})
	}
}
