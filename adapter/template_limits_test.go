package adapter_test

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/config"
)

// slowTemplateWait is how long a run with the slow template may take
// before the test calls the worker lost: the template itself runs for
// seconds (minutes under -race on a loaded machine).
const slowTemplateWait = 3 * time.Second

// runSlowTemplate runs one event whose bundle renders slowly, with the
// given template timeout, cancelling the run's context after cancelAfter
// (zero: never). It fails the test when Run does not return in time.
func runSlowTemplate(t *testing.T, timeout, cancelAfter time.Duration) *adapter.Result {
	t.Helper()
	return runSlow(t, "testdata/task-slow-template.yaml", timeout, cancelAfter)
}

// runSlow runs one event of the task config whose template is slow.
func runSlow(t *testing.T, task string, timeout, cancelAfter time.Duration) *adapter.Result {
	t.Helper()
	h := newHarness(t, "")
	h.useTask(task)
	p, err := adapter.New(adapter.Options{
		Task: h.task, Adapter: config.AdapterInfo{Name: "test-adapter", Version: "0"},
		Maestro: oneGetEach{h.store}, API: h.api, Clock: h.clock, TemplateTimeout: timeout,
		LookupEnv: func(string) (string, bool) { return "", false },
		Logger:    slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if cancelAfter > 0 {
		time.AfterFunc(cancelAfter, cancel)
	}
	done := make(chan *adapter.Result, 1)
	go func() {
		done <- p.Run(ctx, adapter.Event{ID: "ev-1", Type: "com.redhat.hyperfleet.cluster.reconcile", Source: "test",
			Data: map[string]any{"id": "x", "kind": "Cluster", "generation": int64(1), "items": bigList(999)}})
	}()
	select {
	case res := <-done:
		return res
	case <-time.After(slowTemplateWait):
		t.Fatalf("Run did not return within %v: the worker is held by the template", slowTemplateWait)
	}
	return nil
}

// A render that outlasts the template timeout is stopped: the bundle fails
// (RenderFailed, naming the limit), nothing is written, and the event is
// redelivered (issue 14, item 7).
func TestTemplateTimeoutFailsTheBundle(t *testing.T) {
	res := runSlowTemplate(t, 50*time.Millisecond, 0)
	o := outcome(t, res, "slow")
	if o.State != adapter.StateFailed || o.Reason != adapter.ReasonRenderFailed {
		t.Fatalf("outcome %+v, want failed/RenderFailed", o)
	}
	if !strings.Contains(o.Error, "template timeout of 50ms") {
		t.Errorf("error %q does not name the template timeout", o.Error)
	}
	if res.Disposition() != adapter.Retry {
		t.Errorf("disposition %v, want a redelivery", res.Disposition())
	}
}

// A cancelled run (shutdown past its grace period) stops the template it is
// in, so the worker is back at once whatever the template does.
func TestCancelledRunStopsTheTemplate(t *testing.T) {
	res := runSlowTemplate(t, time.Hour, 50*time.Millisecond)
	if o := outcome(t, res, "slow"); o.State != adapter.StateFailed || !strings.Contains(o.Error, "context canceled") {
		t.Fatalf("outcome %+v, want failed by the cancelled context", o)
	}
}

// The status payload's templates stop at the template timeout too: the
// event fails in post and is redelivered, and the worker is back at once.
func TestPostTemplateTimeoutFailsTheEvent(t *testing.T) {
	res := runSlow(t, "testdata/task-slow-post.yaml", 50*time.Millisecond, 0)
	if res.Error == nil || res.Error.Phase != "post" || !strings.Contains(res.Error.Message, "template timeout of 50ms") {
		t.Fatalf("error %+v, want a post failure naming the template timeout", res.Error)
	}
	if res.Disposition() != adapter.Retry {
		t.Errorf("disposition %v, want a redelivery", res.Disposition())
	}
}
