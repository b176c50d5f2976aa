package adapter_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/bundles"
	"github.com/bundle-adapter/bundle-adapter/celenv"
	"github.com/bundle-adapter/bundle-adapter/config"
)

// limitsEvent runs one event for cluster "x" through the pipeline with the
// limits task config and the given CEL timeout (zero: the default).
func (h *harness) limitsEvent(celTimeout time.Duration, fields map[string]any) (*adapter.Result, time.Duration) {
	h.t.Helper()
	data := map[string]any{"id": "x", "kind": "Cluster", "generation": int64(1)}
	for k, v := range fields {
		data[k] = v
	}
	p, err := adapter.New(adapter.Options{
		Task: h.task, Adapter: config.AdapterInfo{Name: "test-adapter", Version: "0"},
		Maestro: oneGetEach{h.store}, API: h.api, Clock: h.clock, CELTimeout: celTimeout,
		LookupEnv: func(string) (string, bool) { return "", false },
		Logger:    slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		h.t.Fatal(err)
	}
	h.store.ResetCalls()
	start := time.Now()
	res := p.Run(context.Background(), adapter.Event{ID: "ev-1", Type: "com.redhat.hyperfleet.cluster.reconcile", Source: "test", Data: data})
	return res, time.Since(start)
}

func newLimitsHarness(t *testing.T) *harness {
	t.Helper()
	h := newHarness(t, "")
	h.useTask("testdata/task-limits.yaml")
	return h
}

func bigList(n int) []any {
	items := make([]any, n)
	for i := range items {
		items[i] = int64(i)
	}
	return items
}

// wantLimitFailure checks that the event failed in the preconditions phase
// at step, with an error naming the expression's YAML path and one of the
// limits, that Health reports it, that no bundle was touched and that the
// event is redelivered.
func wantLimitFailure(t *testing.T, h *harness, res *adapter.Result, step, path string, limits ...string) {
	t.Helper()
	if res.Error == nil || res.Error.Phase != "preconditions" || res.Error.Step != step {
		t.Fatalf("want a failure in phase preconditions, step %s; got %+v", step, res.Error)
	}
	named := func(s string) bool {
		for _, l := range limits {
			if strings.Contains(s, l) {
				return true
			}
		}
		return false
	}
	if !strings.Contains(res.Error.Message, path) || !named(res.Error.Message) {
		t.Errorf("error %q must name %s and one of %q", res.Error.Message, path, limits)
	}
	health := h.condition("Health")
	if !strings.HasPrefix(health, "False ExecutionFailed:preconditions "+step+": ") || !strings.Contains(health, path) || !named(health) {
		t.Errorf("Health = %q, want False naming %s and the limit", health, path)
	}
	if len(h.calls()) != 0 {
		t.Errorf("bundles must be skipped, Maestro calls: %v", h.calls())
	}
	if res.Disposition() != adapter.Retry {
		t.Errorf("disposition = %v, want retry (dead-lettered after max deliveries)", res.Disposition())
	}
	t.Logf("Health: %s", health)
}

// Nested comprehensions over a list of 3,000 elements bound as a param
// (9 million steps) are stopped by the default limits, within a bounded
// time, with an error naming the limit and the expression.
func TestExpensiveCELExpressionIsStopped(t *testing.T) {
	h := newLimitsHarness(t)
	if res, _ := h.limitsEvent(0, map[string]any{"items": bigList(3)}); res.Err() != nil {
		t.Fatalf("a small list must pass: %v", res.Err())
	}
	res, took := h.limitsEvent(0, map[string]any{"items": bigList(3000)})
	wantLimitFailure(t, h, res, "pairs", "preconditions[0].expression",
		fmt.Sprintf("exceeded the CEL timeout of %v", adapter.DefaultCELTimeout),
		fmt.Sprintf("exceeded the CEL cost limit of %d", celenv.CostLimit))
	if took > 5*time.Second {
		t.Errorf("the event took %v: the evaluation was not bounded", took)
	}
}

// Options.CELTimeout bounds each evaluation; the error names the timeout.
func TestCELTimeoutNamesTheLimit(t *testing.T) {
	h := newLimitsHarness(t)
	res, took := h.limitsEvent(time.Millisecond, map[string]any{"items": bigList(3000)})
	wantLimitFailure(t, h, res, "pairs", "preconditions[0].expression", "evaluation exceeded the CEL timeout of 1ms and was stopped")
	if took > 5*time.Second {
		t.Errorf("the event took %v with a 1ms CEL timeout", took)
	}
}

// An expression whose cost exceeds celenv.CostLimit fails naming the
// cost limit, whatever the timeout (a string function over 11 MB costs
// 1.1 million).
func TestCELCostLimitNamesTheLimit(t *testing.T) {
	h := newLimitsHarness(t)
	res, _ := h.limitsEvent(time.Minute, map[string]any{"blob": strings.Repeat("x", 11_000_000)})
	wantLimitFailure(t, h, res, "needle", "preconditions[1].expression",
		fmt.Sprintf("evaluation exceeded the CEL cost limit of %d and was stopped", celenv.CostLimit))
}

// A rendered bundle over bundles.MaxBundleBytes fails that bundle with an
// error naming it, its size and the limit, before any Maestro write; the
// other bundle is still applied and Health names the failure.
func TestOversizedBundleFailsBeforeAnyWrite(t *testing.T) {
	h := newLimitsHarness(t)
	res, _ := h.limitsEvent(0, map[string]any{"padding": strings.Repeat("p", bundles.MaxBundleBytes+1)})
	o := outcome(t, res, "padded")
	if o.State != adapter.StateFailed || o.Reason != adapter.ReasonRenderFailed {
		t.Fatalf("padded: got %s/%s %s, want failed RenderFailed", o.Operation, o.State, o.Reason)
	}
	m := regexp.MustCompile(`bundle "padded" is (\d+) bytes as JSON, over the ManifestWork limit of (\d+) bytes`).FindStringSubmatch(o.Error)
	if m == nil || m[2] != strconv.Itoa(bundles.MaxBundleBytes) {
		t.Fatalf("error %q must name the bundle, its size and the limit of %d bytes", o.Error, bundles.MaxBundleBytes)
	}
	if size, _ := strconv.Atoi(m[1]); size <= bundles.MaxBundleBytes {
		t.Errorf("reported size %d is not over the limit", size)
	}
	wantCalls(t, h.calls(), "get x-padded", "get x-job", "create x-job")
	wantOutcome(t, outcome(t, res, "job"), adapter.OpCreate, adapter.StateDone, adapter.ReasonCreated)
	if got := h.condition("Health"); !strings.HasPrefix(got, "False ") || !strings.Contains(got, "padded") || !strings.Contains(got, "ManifestWork limit") {
		t.Errorf("Health = %q, want False naming the bundle and the limit", got)
	}
	if len(h.condition("Health")) > 2000 {
		t.Error("Health message must not carry the bundle")
	}

	// Just under the limit is applied.
	res, _ = h.limitsEvent(0, map[string]any{"padding": strings.Repeat("p", bundles.MaxBundleBytes-2000)})
	wantOutcome(t, outcome(t, res, "padded"), adapter.OpCreate, adapter.StateDone, adapter.ReasonCreated)
}
