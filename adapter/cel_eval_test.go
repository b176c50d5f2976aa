package adapter

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/cel-go/common/types/ref"

	"github.com/bundle-adapter/bundle-adapter/celenv"
	"github.com/bundle-adapter/bundle-adapter/config"
)

// TestUninterruptibleEvalMatchesContextEval: an expression without a
// comprehension, evaluated without the timeout's context, gives the value,
// the error and the limit flag the context path gives, with a live and with
// a cancelled event context and with a timeout already passed; expressions
// with one keep the context path.
func TestUninterruptibleEvalMatchesContextEval(t *testing.T) {
	cases := []celCase{
		{`event.id`, false},
		{`event.data`, false},
		{`event.nope`, false},
		{`event.id + 1`, false},
		{`has(event.data.x)`, false},
		{`resources.?a.?b.orValue("x")`, false},
		{`resources.list[0]`, false},
		{`resources.list[7]`, false},
		{`bundles.x.state == "done" ? "True" : "False"`, false},
		{`bundles.x.count / 0`, false},
		{`adapter.executionStatus`, false},
		{`toJson(resources.huge)`, false}, // past the cost limit
		{`now()`, false},
		{`[1, 2, 3].map(x, x * 2)`, true},
		{`resources.list.exists(c, c.type == "Ready")`, true},
		{`resources.list.all(c, c.missing == 1)`, true},
		{`bundles.all(n, bundles[n].state == "done")`, true},
		{`[1, 2].map(x, [1, 2].map(y, toJson(resources.huge)))`, true},
	}
	r := celTestRun(t, cases)
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, f := range r.p.task.Post.Payloads[0].Compiled.Map {
		var i int
		if _, err := fmt.Sscanf(f.Key, "k%02d", &i); err != nil {
			t.Fatal(err)
		}
		e, c := f.Node.Expr, cases[i]
		if e.Uninterruptible == c.comprehension {
			t.Errorf("%s: Uninterruptible %v, want %v", c.src, e.Uninterruptible, !c.comprehension)
		}
		viaContext := *e
		viaContext.Uninterruptible = false
		for _, v := range []struct {
			ctx     context.Context
			timeout time.Duration
		}{{context.Background(), DefaultCELTimeout}, {cancelled, DefaultCELTimeout}, {context.Background(), -time.Nanosecond}} {
			ctx := v.ctx
			r.p.celTimeout = v.timeout
			got, gotErr := r.evalCEL(ctx, e, r.activation)
			want, wantErr := r.evalCEL(ctx, &viaContext, r.activation)
			g, w := celOutcome(got, gotErr), celOutcome(want, wantErr)
			t.Logf("%s (%v, %v): %s", c.src, ctx.Err(), v.timeout, g)
			if g != w {
				t.Errorf("%s (context err %v, timeout %v):\n got %s\nwant %s", c.src, ctx.Err(), v.timeout, g, w)
			}
		}
	}
}

// celCase is an expression and whether it holds a comprehension.
type celCase struct {
	src           string
	comprehension bool
}

// celTestRun is an event run whose task's status payload has one leaf per
// case, with event, resources, bundles and adapter variables to read.
func celTestRun(t *testing.T, cases []celCase) *eventRun {
	t.Helper()
	var b strings.Builder
	b.WriteString("params:\n  - {name: clusterId, source: event.id, type: string, required: true}\npost:\n  payloads:\n    - name: status\n      build:\n")
	for i, c := range cases {
		fmt.Fprintf(&b, "        k%02d: {expression: %q}\n", i, c.src)
	}
	path := filepath.Join(t.TempDir(), "task.yaml")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	task, err := config.LoadTaskConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := New(Options{Task: task, Adapter: config.AdapterInfo{Name: "a", Version: "0"},
		Maestro: &benchMaestro{}, API: benchAPI{}, LookupEnv: func(string) (string, bool) { return "", false },
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	r := newRun(p, Event{ID: "e1", Type: "t", Source: "s", Data: map[string]any{"id": "c1", "x": int64(1)}})
	r.resources["list"] = []any{map[string]any{"type": "Ready"}, map[string]any{"type": "Other"}}
	r.resources["huge"] = strings.Repeat("x", celenv.CostLimit+10)
	r.bundles["x"] = map[string]any{"state": "done", "count": int64(3)}
	return r
}

// celOutcome is a value or an error as the pipeline sees them: the Go
// value, the error's text and whether it counts as a limit.
func celOutcome(v ref.Val, err error) string {
	if err != nil {
		ce, _ := err.(*celError)
		return fmt.Sprintf("error %q limit %v", err, ce != nil && ce.limit)
	}
	g, cerr := celenv.GoValue(v)
	return fmt.Sprintf("value %#v %v %s", g, cerr, reflect.TypeOf(g))
}
