package metrics

import (
	"fmt"
	"testing"
	"time"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// BenchmarkTrackPending updates the pending-deletion tracking with n
// bundles already tracked: the cost per update does not grow with n.
func BenchmarkTrackPending(b *testing.B) {
	for _, n := range []int{100, 10_000, MaxTrackedBundles} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			m := New()
			h := m.Hooks()
			for i := range n {
				h.Processed(&adapter.Result{Bundles: []adapter.Outcome{outcome(fmt.Sprintf("w%d", i), adapter.OpDelete, adapter.StatePending)}}, time.Millisecond, "acked")
			}
			res := &adapter.Result{Bundles: []adapter.Outcome{outcome("w0", adapter.OpDelete, adapter.StateStalled)}}
			b.ResetTimer()
			for b.Loop() {
				h.Processed(res, time.Millisecond, "acked")
			}
		})
	}
}
