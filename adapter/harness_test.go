package adapter_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/config"
	"github.com/bundle-adapter/bundle-adapter/hyperfleetapi/apistub"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/memmaestro"
	"github.com/bundle-adapter/bundle-adapter/task"
)

var t0 = time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)

// harness runs the real pipeline against the in-memory Maestro and the
// canned API, with a clock the test moves.
type harness struct {
	t     *testing.T
	store *memmaestro.Store
	// batch makes the pipeline read through the store's own GetBundles
	// (one request per event); without it, GetBundles is one Get per key.
	batch bool
	api   *apistub.Stub
	now   time.Time
	task  *task.TaskConfig
	// logs, when set, receives the pipeline's log (debug and up).
	logs io.Writer
	// config is Options.Config (config.<path> param sources).
	config map[string]any
	// reuse runs every event on one pipeline (one process); without it
	// each event gets a new one (another replica, or a restart).
	reuse bool
	p     *adapter.Pipeline
}

func newHarness(t *testing.T, deleteBehavior string) *harness {
	t.Helper()
	h := &harness{t: t, now: t0, api: apistub.New("v1", nil)}
	h.store = memmaestro.New(memmaestro.Options{Clock: h.clock, DeleteBehavior: deleteBehavior, Consumers: []string{"c1"}})
	h.useTask("testdata/task.yaml")
	return h
}

func (h *harness) clock() time.Time { return h.now }

func (h *harness) logger() *slog.Logger {
	if h.logs == nil {
		return slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return slog.New(slog.NewTextHandler(h.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

func (h *harness) useTask(file string) {
	h.t.Helper()
	task, err := config.LoadTaskConfig(file)
	if err != nil {
		h.t.Fatalf("load %s: %v", file, err)
	}
	h.task = task
}

// event runs one reconcile event for cluster "x" with the given data fields
// (generation 1 unless set).
func (h *harness) event(fields map[string]any) *adapter.Result {
	h.t.Helper()
	return h.eventOn(h.pipeline(), fields)
}

// eventOn is event on pipeline p.
func (h *harness) eventOn(p *adapter.Pipeline, fields map[string]any) *adapter.Result {
	h.t.Helper()
	data := map[string]any{"id": "x", "kind": "Cluster", "generation": int64(1)}
	for k, v := range fields {
		data[k] = v
	}
	h.store.ResetCalls()
	return p.Run(context.Background(), adapter.Event{ID: "ev-1", Type: "com.redhat.hyperfleet.cluster.reconcile", Source: "test", Data: data})
}

// pipeline is the pipeline of the next event: a new one unless reuse is set.
func (h *harness) pipeline() *adapter.Pipeline {
	h.t.Helper()
	if h.reuse && h.p != nil {
		return h.p
	}
	var m adapter.Maestro = oneGetEach{h.store}
	if h.batch {
		m = h.store
	}
	p, err := adapter.New(adapter.Options{
		Task: h.task, Adapter: config.AdapterInfo{Name: "test-adapter", Version: "0"},
		Maestro: m, API: h.api, Clock: h.clock,
		LookupEnv: func(string) (string, bool) { return "", false },
		Logger:    h.logger(),
		Config:    h.config,
	})
	if err != nil {
		h.t.Fatal(err)
	}
	h.p = p
	return p
}

// calls lists the Maestro calls of the last event as "verb name".
func (h *harness) calls() []string {
	var out []string
	for _, c := range h.store.Calls() {
		out = append(out, c.Verb+" "+c.Name)
	}
	return out
}

// writes counts create, update and delete calls of the last event.
func (h *harness) writes() int {
	n := 0
	for _, c := range h.store.Calls() {
		if c.Verb != memmaestro.VerbGet && c.Verb != memmaestro.VerbGetBundles {
			n++
		}
	}
	return n
}

func outcome(t *testing.T, res *adapter.Result, name string) adapter.Outcome {
	t.Helper()
	for _, o := range res.Bundles {
		if o.Name == name {
			return o
		}
	}
	t.Fatalf("no outcome for bundle %q in %+v", name, res.Bundles)
	return adapter.Outcome{}
}

func wantOutcome(t *testing.T, o adapter.Outcome, op adapter.Operation, state adapter.State, reason string) {
	t.Helper()
	if o.Operation != op || o.State != state || o.Reason != reason {
		t.Errorf("bundle %s: got %s/%s %s (error %q), want %s/%s %s", o.Name, o.Operation, o.State, o.Reason, o.Error, op, state, reason)
	}
}

func wantCalls(t *testing.T, got []string, want ...string) {
	t.Helper()
	if strings.Join(got, ", ") != strings.Join(want, ", ") {
		t.Errorf("maestro calls:\n got  %v\n want %v", got, want)
	}
}

// lastStatus is the body of the last status PUT.
func (h *harness) lastStatus() map[string]any {
	h.t.Helper()
	calls := h.api.Calls()
	for i := len(calls) - 1; i >= 0; i-- {
		if calls[i].Method == "PUT" {
			m, ok := calls[i].Body.(map[string]any)
			if !ok {
				h.t.Fatalf("status body is not a JSON object: %v", calls[i].Body)
			}
			return m
		}
	}
	h.t.Fatal("no status PUT was sent")
	return nil
}

// condition returns "status reason message" of a condition in the last status.
func (h *harness) condition(typ string) string {
	h.t.Helper()
	conds, _ := h.lastStatus()["conditions"].([]any)
	for _, c := range conds {
		m := c.(map[string]any)
		if m["type"] == typ {
			return fmt.Sprintf("%v %v %v", m["status"], m["reason"], m["message"])
		}
	}
	b, _ := json.Marshal(h.lastStatus())
	h.t.Fatalf("no %s condition in %s", typ, b)
	return ""
}

// oneGetEach is the in-memory Maestro read one Get per bundle: its
// GetBundles calls Get for each key, so tests see (and count) every read
// by name, and a differential test can compare it with the batched read.
type oneGetEach struct{ *memmaestro.Store }

func (m oneGetEach) GetBundles(ctx context.Context, keys []adapter.BundleKey) ([]*workv1.ManifestWork, error) {
	out := make([]*workv1.ManifestWork, len(keys))
	for i, k := range keys {
		w, err := m.Get(ctx, k.Consumer, k.Name)
		if err != nil && !errors.Is(err, adapter.ErrNotFound) {
			return nil, err
		}
		out[i] = w
	}
	return out, nil
}
