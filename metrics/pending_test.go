package metrics

import (
	"fmt"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// The pending-deletion tracking keeps at most MaxTrackedBundles bundles
// and updates in constant time: bundles that are never seen again (their
// cluster gone) cannot grow it without bound, and a large fleet does not
// make every update scan all of them under the mutex (issue 14, item 16).
func TestPendingTrackingIsBounded(t *testing.T) {
	const bound = 100_000 // MaxTrackedBundles
	m := New()
	h := m.Hooks()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range bound + 1000 {
			res := &adapter.Result{Bundles: []adapter.Outcome{outcome(fmt.Sprintf("w%d", i), adapter.OpDelete, adapter.StatePending)}}
			h.Processed(res, time.Millisecond, "acked")
		}
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("%d updates did not finish in 30s: every update scans the whole map", bound+1000)
	}
	if got := testutil.ToFloat64(m.pendingDeletion); got > bound {
		t.Errorf("pending gauge %v, want at most %d tracked bundles", got, bound)
	}
}

// A bundle not seen for PendingTTL is forgotten, stalled or not, and the
// gauges say so at the next update.
func TestPendingEntriesExpire(t *testing.T) {
	m := New()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	m.pending.now = func() time.Time { return now }
	h := m.Hooks()
	step := func(bs ...adapter.Outcome) {
		h.Processed(&adapter.Result{Bundles: bs}, time.Millisecond, "acked")
	}
	step(outcome("old", adapter.OpDelete, adapter.StateStalled), outcome("kept", adapter.OpDelete, adapter.StatePending))
	now = now.Add(PendingTTL / 2)
	step(outcome("kept", adapter.OpDelete, adapter.StatePending))
	now = now.Add(PendingTTL/2 + time.Second)
	step(outcome("new", adapter.OpRecreate, adapter.StatePending))
	if got := testutil.ToFloat64(m.pendingDeletion); got != 2 {
		t.Errorf("pending gauge %v, want 2 (kept, new; old expired)", got)
	}
	if got := testutil.ToFloat64(m.stalled); got != 0 {
		t.Errorf("stalled gauge %v, want 0 (the stalled one expired)", got)
	}
}
