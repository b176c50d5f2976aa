package metrics

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

func outcome(work string, op adapter.Operation, st adapter.State) adapter.Outcome {
	return adapter.Outcome{Name: work, Consumer: "c1", WorkName: work, Operation: op, State: st}
}

func TestPendingDeletionGaugeFollowsOutcomes(t *testing.T) {
	m := New()
	h := m.Hooks()
	steps := []struct {
		bundles          []adapter.Outcome
		pending, stalled float64
	}{
		{[]adapter.Outcome{outcome("a", adapter.OpRecreate, adapter.StatePending), outcome("b", adapter.OpDelete, adapter.StatePending)}, 2, 0},
		{[]adapter.Outcome{outcome("a", adapter.OpRecreate, adapter.StateStalled)}, 2, 1},
		{[]adapter.Outcome{outcome("a", adapter.OpCreate, adapter.StateDone), outcome("b", adapter.OpDelete, adapter.StateDone)}, 0, 0},
	}
	for i, s := range steps {
		h.Processed(&adapter.Result{Bundles: s.bundles}, time.Millisecond, "acked")
		if got := testutil.ToFloat64(m.pendingDeletion); got != s.pending {
			t.Errorf("step %d: pending gauge %v, want %v", i, got, s.pending)
		}
		if got := testutil.ToFloat64(m.stalled); got != s.stalled {
			t.Errorf("step %d: stalled gauge %v, want %v", i, got, s.stalled)
		}
	}
	if got := testutil.ToFloat64(m.bundleOps.WithLabelValues("recreate", "stalled")); got != 1 {
		t.Errorf("bundle_operations_total{recreate,stalled} = %v", got)
	}
	if got := testutil.ToFloat64(m.events.WithLabelValues("acked")); got != 3 {
		t.Errorf("events_total{acked} = %v", got)
	}
}

func TestDeadLetterKinds(t *testing.T) {
	m := New()
	for _, r := range []string{"malformed: x", "invalid event: y", "failed 5 deliveries"} {
		m.Hooks().DeadLettered(r)
	}
	for _, k := range []string{"malformed", "invalid", "max_deliveries"} {
		if got := testutil.ToFloat64(m.deadLetters.WithLabelValues(k)); got != 1 {
			t.Errorf("dead letters %s = %v", k, got)
		}
	}
}

type errMaestro struct{ err error }

func (e errMaestro) Get(context.Context, string, string) (*workv1.ManifestWork, error) {
	return nil, e.err
}
func (e errMaestro) Create(context.Context, string, *workv1.ManifestWork, adapter.CreateRead) (*workv1.ManifestWork, error) {
	return nil, e.err
}
func (e errMaestro) Update(context.Context, string, *workv1.ManifestWork, *workv1.ManifestWork) (*workv1.ManifestWork, error) {
	return nil, e.err
}
func (e errMaestro) Delete(context.Context, string, string) error   { return e.err }
func (e errMaestro) Redelete(context.Context, string, string) error { return e.err }
func (e errMaestro) GetBundles(_ context.Context, keys []adapter.BundleKey) ([]*workv1.ManifestWork, error) {
	return make([]*workv1.ManifestWork, len(keys)), e.err
}

func TestMaestroRequestCodes(t *testing.T) {
	tests := []struct {
		err  error
		code string
	}{
		{nil, "ok"},
		{fmt.Errorf("x: %w", adapter.ErrNotFound), "not_found"},
		{fmt.Errorf("x: %w", adapter.ErrUnderDeletion), "under_deletion"},
		{fmt.Errorf("x: %w", adapter.ErrUnavailable), "unavailable"},
		{fmt.Errorf("x: %w", adapter.ErrConsumerNotRegistered), "consumer_not_registered"},
	}
	for _, tt := range tests {
		m := New()
		mc := m.Maestro(errMaestro{tt.err})
		mc.Get(context.Background(), "c", "n")
		mc.Delete(context.Background(), "c", "n")
		mc.Redelete(context.Background(), "c", "n")
		for _, verb := range []string{"get", "delete", "redelete"} {
			if got := testutil.ToFloat64(m.maestroRequests.WithLabelValues(verb, tt.code)); got != 1 {
				t.Errorf("%v: %s{%s} = %v", tt.err, verb, tt.code, got)
			}
		}
		if !strings.Contains(fmt.Sprint(testutil.CollectAndCount(m.maestroRequests)), "3") {
			t.Errorf("want three series (get, delete, redelete)")
		}
	}
}

// The wrapper counts each batch read once, as get_bundles.
func TestMaestroBatchReads(t *testing.T) {
	m := New()
	mc := m.Maestro(errMaestro{})
	ws, err := mc.GetBundles(context.Background(), []adapter.BundleKey{{Consumer: "c", Name: "a"}, {Consumer: "c", Name: "b"}})
	if err != nil || len(ws) != 2 {
		t.Fatalf("GetBundles = %d bundles, %v", len(ws), err)
	}
	if got := testutil.ToFloat64(m.maestroRequests.WithLabelValues("get_bundles", "ok")); got != 1 {
		t.Errorf("get_bundles{ok} = %v, want 1 for one batch", got)
	}
}

// Payload leaves sent as null (no default, expression failed) are counted
// by payload.
func TestPayloadNullLeavesCounted(t *testing.T) {
	m := New()
	m.Hooks().Processed(&adapter.Result{NullLeaves: map[string]int{"status": 2}}, time.Millisecond, "acked")
	m.Hooks().Processed(&adapter.Result{NullLeaves: map[string]int{"status": 1, "other": 1}}, time.Millisecond, "acked")
	if got := testutil.ToFloat64(m.nullLeaves.WithLabelValues("status")); got != 3 {
		t.Errorf("payload_null_leaves_total{payload=status} = %v, want 3", got)
	}
	if got := testutil.ToFloat64(m.nullLeaves.WithLabelValues("other")); got != 1 {
		t.Errorf("payload_null_leaves_total{payload=other} = %v, want 1", got)
	}
}

// A redelivery acked as superseded is counted by
// bundle_adapter_events_superseded_total, not as an event processed.
func TestSupersededCounted(t *testing.T) {
	m := New()
	h := m.Hooks()
	if h.Superseded == nil {
		t.Fatal("no Superseded hook")
	}
	h.Superseded()
	h.Superseded()
	if got := testutil.ToFloat64(m.superseded); got != 2 {
		t.Errorf("events_superseded_total = %v, want 2", got)
	}
	if got := testutil.CollectAndCount(m.events); got != 0 {
		t.Errorf("events_total has %d series after superseded redeliveries only, want 0", got)
	}
}
