package view

import (
	"fmt"
	"testing"
	"time"
)

// markers counts the forgotten bundles' markers the view holds.
func (v *View) markers() int {
	v.mu.RLock()
	defer v.mu.RUnlock()
	n := 0
	for _, e := range v.entries {
		if e.gone {
			n++
		}
	}
	return n
}

// Markers left by 404s and writes are bounded without any stored read
// (issue 28 #12: 500,000 404s left 500,000 markers, +85 MB): they expire
// by time (markerTTL) and by count (maxMarkers), whatever else happens.
func TestMarkersAreBounded(t *testing.T) {
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	v := New(Options{MaxAge: time.Hour, Clock: func() time.Time { return now }, Synced: true})
	for i := range 200_000 {
		v.Observe(v.Begin(), "c1", fmt.Sprintf("gone-%d", i), nil) // a 404
	}
	if n := v.markers(); n > maxMarkers+sweepEvery {
		t.Errorf("%d markers after 200,000 404s within a second, want at most %d", n, maxMarkers+sweepEvery)
	}
	for i := range 10 {
		v.Forget("c1", fmt.Sprintf("write-%d", i))
	}
	now = now.Add(markerTTL + time.Second)
	v.Forget("c1", "last")
	if n := v.markers(); n != 1 {
		t.Errorf("%d markers after %v, want the newest one only (expired by time)", n, markerTTL)
	}
}
