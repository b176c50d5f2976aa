package metrics

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// bundle_adapter_oldest_pending_deletion_seconds is, per kind of the
// event's resource, the age of the oldest deletion or recreation pending:
// the adapter's PendingSeconds plus the time since it was seen; 0 once
// none is pending; an expired entry is left out.
func TestOldestPendingDeletion(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	pend := func(name string, op adapter.Operation, st adapter.State, secs int64) adapter.Outcome {
		o := outcome(name, op, st)
		o.PendingSeconds = secs
		return o
	}
	steps := []struct {
		name    string
		advance time.Duration
		kind    string
		bundles []adapter.Outcome
		want    string
	}{
		{"cluster deletion pending 100s", 0, "Cluster", []adapter.Outcome{pend("c1", adapter.OpDelete, adapter.StatePending, 100)},
			`{kind="Cluster"} 100`},
		{"a nodepool recreation, younger", 0, "NodePool", []adapter.Outcome{pend("n1", adapter.OpRecreate, adapter.StatePending, 30)},
			`{kind="Cluster"} 100|{kind="NodePool"} 30`},
		{"time passes: both age", time.Minute, "NodePool", nil,
			`{kind="Cluster"} 160|{kind="NodePool"} 90`},
		{"a second cluster, older, stalled", 0, "Cluster", []adapter.Outcome{pend("c2", adapter.OpDelete, adapter.StateStalled, 900)},
			`{kind="Cluster"} 900|{kind="NodePool"} 90`},
		{"the older one is done", 0, "Cluster", []adapter.Outcome{outcome("c2", adapter.OpDelete, adapter.StateDone)},
			`{kind="Cluster"} 160|{kind="NodePool"} 90`},
		{"all done: 0, series kept", 0, "Cluster", []adapter.Outcome{outcome("c1", adapter.OpDelete, adapter.StateDone), outcome("n1", adapter.OpRecreate, adapter.StateDone)},
			`{kind="Cluster"} 0|{kind="NodePool"} 0`},
		{"pending again, then not seen for PendingTTL: expired", 0, "Cluster", []adapter.Outcome{pend("c3", adapter.OpDelete, adapter.StatePending, 5)},
			`{kind="Cluster"} 5|{kind="NodePool"} 0`},
		{"expired", PendingTTL, "Cluster", nil,
			`{kind="Cluster"} 0|{kind="NodePool"} 0`},
	}
	m := New()
	m.pending.now = func() time.Time { return now }
	h := m.Hooks()
	for _, st := range steps {
		now = now.Add(st.advance)
		if st.bundles != nil {
			h.Processed(&adapter.Result{Event: adapter.Event{Data: map[string]any{"kind": st.kind}}, Bundles: st.bundles}, time.Millisecond, "acked")
		}
		var want strings.Builder
		want.WriteString("# HELP bundle_adapter_oldest_pending_deletion_seconds " + newOldestPending(m).help() + "\n# TYPE bundle_adapter_oldest_pending_deletion_seconds gauge\n")
		for _, l := range strings.Split(st.want, "|") {
			want.WriteString("bundle_adapter_oldest_pending_deletion_seconds" + l + "\n")
		}
		if err := testutil.GatherAndCompare(m.Registry, strings.NewReader(want.String()), "bundle_adapter_oldest_pending_deletion_seconds"); err != nil {
			t.Errorf("%s: %v", st.name, err)
		}
	}
}

// The kind label comes from events: at most MaxPendingKinds distinct
// values, the rest (and events without data.kind) are "other".
func TestOldestPendingKindsBounded(t *testing.T) {
	m := New()
	h := m.Hooks()
	for i := range MaxPendingKinds + 5 {
		ev := adapter.Event{Data: map[string]any{"kind": strings.Repeat("K", i+1)}}
		h.Processed(&adapter.Result{Event: ev, Bundles: []adapter.Outcome{outcome("w", adapter.OpDelete, adapter.StatePending)}}, time.Millisecond, "acked")
	}
	if n := testutil.CollectAndCount(newOldestPending(m)); n > MaxPendingKinds+1 {
		t.Errorf("%d kind series, want at most %d (+ other)", n, MaxPendingKinds)
	}
}
