package adapter_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/memmaestro"
)

// A CEL runtime error is reported as Health False naming the phase and the
// expression, and the event is redelivered.
func TestCELRuntimeErrorReportsHealthFalse(t *testing.T) {
	h := newHarness(t, "")
	res := h.event(map[string]any{"failDelete": true})
	if res.ExecutionStatus != adapter.ExecutionFailed || res.Error.Phase != "resources" || res.Error.Step != "config" {
		t.Fatalf("want a failure in phase resources, step config; got %+v", res.Error)
	}
	got := h.condition("Health")
	for _, want := range []string{"False", "ExecutionFailed:resources", "resources[0].lifecycle.delete.when.expression"} {
		if !strings.Contains(got, want) {
			t.Errorf("Health = %q, want it to contain %q", got, want)
		}
	}
	if res.Disposition() != adapter.Retry {
		t.Errorf("disposition = %v, want retry", res.Disposition())
	}
	// The second bundle still ran.
	wantOutcome(t, outcome(t, res, "job"), adapter.OpCreate, adapter.StateDone, adapter.ReasonCreated)
}

func TestUnregisteredConsumerIsAClearError(t *testing.T) {
	h := newHarness(t, "")
	res := h.event(map[string]any{"jobConsumer": "nobody"})
	o := outcome(t, res, "job")
	if o.State != adapter.StateFailed || o.Reason != adapter.ReasonConsumerNotRegistered {
		t.Fatalf("got %+v, want failed ConsumerNotRegistered", o)
	}
	if !errors.Is(o.Err(), adapter.ErrConsumerNotRegistered) || !strings.Contains(o.Error, "nobody") {
		t.Errorf("error %q must wrap ErrConsumerNotRegistered and name the consumer", o.Error)
	}
	if got := h.condition("Health"); !strings.Contains(got, "job: ") || !strings.Contains(got, "nobody") {
		t.Errorf("Health must name the bundle and the consumer, got %q", got)
	}
}

// Two bundles run in config order; a failure of the first is reported and
// does not hide the second.
func TestFirstBundleFailureDoesNotHideSecond(t *testing.T) {
	h := newHarness(t, "")
	h.store.FailNext(memmaestro.VerbCreate, 1, adapter.ErrUnavailable)
	res := h.event(nil)
	if got := []string{res.Bundles[0].Name, res.Bundles[1].Name}; got[0] != "config" || got[1] != "job" {
		t.Fatalf("bundles out of config order: %v", got)
	}
	wantOutcome(t, res.Bundles[0], adapter.OpCreate, adapter.StateFailed, adapter.ReasonMaestroUnavailable)
	wantOutcome(t, res.Bundles[1], adapter.OpCreate, adapter.StateDone, adapter.ReasonCreated)
	if res.Error == nil || res.Error.Step != "config" || res.Disposition() != adapter.Retry {
		t.Errorf("want the first bundle's failure reported and a retry, got %+v / %v", res.Error, res.Disposition())
	}
	if !res.Transient() {
		t.Error("Maestro unavailable is transient")
	}
}

// Post always runs: while a recreation is pending it reports
// RecreationPending, Finalized False, the observed deletionTimestamp and the
// pending time from it.
func TestPostRunsWhilePending(t *testing.T) {
	h := newHarness(t, "")
	h.event(nil)
	gen2 := map[string]any{"generation": int64(2), "recreate": true}
	h.event(gen2)
	h.now = h.now.Add(42 * time.Second)
	res := h.event(gen2)
	if res.Err() != nil {
		t.Fatal(res.Err())
	}
	if got := h.condition("Applied"); got != "False RecreationPending <nil>" {
		t.Errorf("Applied = %q", got)
	}
	if got := h.condition("Finalized"); !strings.HasPrefix(got, "False DeletionTimestampSeen") {
		t.Errorf("Finalized = %q, want False with the deletionTimestamp visible to CEL", got)
	}
	data, _ := h.lastStatus()["data"].(map[string]any)
	if data["jobPending"] != float64(42) {
		t.Errorf("bundles.job.pendingSeconds = %v, want 42", data["jobPending"])
	}
	if res.Disposition() != adapter.Ack {
		t.Errorf("a pending deletion is a success; disposition %v", res.Disposition())
	}
}

func TestPreconditionNotMetSkipsBundlesButReports(t *testing.T) {
	h := newHarness(t, "")
	res := h.event(map[string]any{"proceed": false})
	if !res.Skipped || !strings.Contains(res.SkipReason, `'allowed'`) {
		t.Errorf("want skipped by precondition allowed, got skipped=%v %q", res.Skipped, res.SkipReason)
	}
	if len(h.calls()) != 0 {
		t.Errorf("skipped event must not touch Maestro: %v", h.calls())
	}
	if got := h.condition("Applied"); got != "False ResourcesSkipped <nil>" {
		t.Errorf("Applied = %q", got)
	}
}

func TestMissingRequiredEventFieldIsDeadLettered(t *testing.T) {
	h := newHarness(t, "")
	res := h.event(map[string]any{"generation": nil})
	if res.Disposition() != adapter.DeadLetter {
		t.Fatalf("disposition = %v, want dead-letter", res.Disposition())
	}
	if !strings.Contains(res.Error.Message, `required param "generation": the event has no event.generation`) {
		t.Errorf("error must name the param and the field: %q", res.Error.Message)
	}
	if got := h.condition("Health"); !strings.Contains(got, "ExecutionFailed:params") {
		t.Errorf("Health = %q", got)
	}
}

func TestMaestroUnavailableAtDiscoveryIsRetried(t *testing.T) {
	h := newHarness(t, "")
	h.store.FailNext(memmaestro.VerbGet, 2, adapter.ErrUnavailable)
	res := h.event(nil)
	if res.Disposition() != adapter.Retry || !res.Transient() {
		t.Fatalf("want a transient retry, got %v transient=%v", res.Disposition(), res.Transient())
	}
	if h.writes() != 0 {
		t.Errorf("nothing may be written without an authoritative read: %v", h.calls())
	}
}

func TestStatusReportFailureIsRetried(t *testing.T) {
	h := newHarness(t, "")
	h.api.FailNext("PUT /api/hyperfleet/v1/clusters/x/statuses", 1)
	res := h.event(nil)
	if res.Error == nil || res.Error.Phase != "post" || res.Disposition() != adapter.Retry {
		t.Fatalf("a failed status PUT must fail the event in phase post and be retried, got %+v", res.Error)
	}
}
