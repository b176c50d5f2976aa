package celenv

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/bundle-adapter/bundle-adapter/internal/configfile"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/interpreter"
)

var celTestNow = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// celEval compiles src in a task environment with the given variables
// and evaluates it with the clock bound to celTestNow.
func celEval(t *testing.T, src string, vars map[string]any) (any, error) {
	t.Helper()
	names := make([]string, 0, len(vars))
	for n := range vars {
		names = append(names, n)
	}
	env, err := NewEnv(names)
	if err != nil {
		t.Fatal(err)
	}
	var l configfile.ErrorList
	e := &Expr{Src: src, Path: "params[0].source.expression", Line: 3}
	env.Compile(&l, e)
	if len(l.Errs) > 0 {
		return nil, errors.New(l.Errs[0].Error())
	}
	act := map[string]any{ClockVar: types.Timestamp{Time: celTestNow}}
	for k, v := range vars {
		act[k] = v
	}
	out, _, err := e.Program.ContextEval(context.Background(), act)
	if err != nil {
		return nil, err
	}
	return out.Value(), nil
}

// The helpers hyperfleet-adapter documents (docs/conventions/cel.md,
// internal/criteria): its signatures, its results for missing keys, wrong
// shapes and absent conditions, and now() on the event's clock.
func TestCELHyperFleetFunctions(t *testing.T) {
	conds := []any{
		map[string]any{"type": "Ready", "status": "True", "last_transition_time": "2026-01-02T03:00:00Z"},
		map[string]any{"type": "Applied", "status": "False", "last_transition_time": "2026-01-02T03:04:00Z"},
		map[string]any{"type": "NoStatus"},
		map[string]any{"type": "BadTime", "status": "True", "last_transition_time": "yesterday"},
		map[string]any{"type": "Camel", "status": "True", "lastTransitionTime": "2026-01-01T00:00:00Z"},
		"not a map",
		map[string]any{"type": "Ready", "status": "False"},
	}
	feedback := map[string]any{"values": []any{
		map[string]any{"name": "phase", "fieldValue": map[string]any{"type": "String", "string": "Active"}},
		map[string]any{"name": "replicas", "fieldValue": map[string]any{"type": "Integer", "integer": 3}},
		"junk",
	}}
	obj := map[string]any{"a": map[string]any{"b": []any{"x", map[string]any{"c": "deep"}}}, "n": nil}
	vars := map[string]any{"conds": conds, "feedback": feedback, "obj": obj, "clusterStatus": map[string]any{"conditions": conds}}
	tests := []struct {
		src  string
		want any
	}{
		{`now()`, "2026-01-02T03:04:05Z"},
		{`timestamp(now()) == timestamp("2026-01-02T03:04:05Z")`, true},
		{`dig(obj, "a.b.1.c")`, "deep"},
		{`dig(obj, " a . b .0 ")`, "x"},
		{`dig(obj, "a..b.0")`, "x"},
		{`dig(obj, "")["n"] == null`, true},
		{`dig(obj, "a.missing") == null`, true},
		{`dig(obj, "a.b.7") == null`, true},
		{`dig(obj, "a.b.x") == null`, true},
		{`dig(obj, "a.b.0.c") == null`, true},
		{`dig(obj, "n.x") == null`, true},
		{`dig({"k": [1, {"z": 2}]}, "k.1.z")`, int64(2)},
		{`dig("str", "a") == null`, true},
		{`conditionStatus(conds, "Ready")`, "True"},
		{`conditionStatus(conds, "Applied")`, "False"},
		{`conditionStatus(conds, "NoStatus")`, "Unknown"},
		{`conditionStatus(conds, "Absent")`, "Unknown"},
		{`conditionStatus(clusterStatus.conditions, "Ready")`, "True"},
		{`conditionStatus([], "Ready")`, "Unknown"},
		{`conditionAge(conds, "Ready")`, int64(245)},
		{`conditionAge(conds, "Applied")`, int64(5)},
		{`conditionAge(conds, "Absent")`, int64(-1)},
		{`conditionAge(conds, "NoStatus")`, int64(-1)},
		{`conditionAge(conds, "BadTime")`, int64(-1)},
		{`conditionAge(conds, "Camel")`, int64(-1)},
		{`stableFor(conds, "Ready", 245)`, true},
		{`stableFor(conds, "Ready", 246)`, false},
		{`stableFor(conds, "Applied", 1)`, false},
		{`stableFor(conds, "Absent", 0)`, false},
		{`stableFor(conds, "BadTime", 0)`, false},
		{`statusFeedbackValue(feedback, "phase")`, "Active"},
		{`statusFeedbackValue(feedback, "replicas")`, ""},
		{`statusFeedbackValue(feedback, "absent")`, ""},
		{`statusFeedbackValue({}, "phase")`, ""},
		{`statusFeedbackValue("x", "phase")`, ""},
		{`triState(true, true)`, "True"},
		{`triState(false, true)`, "False"},
		{`triState(false, false)`, "Unknown"},
		{`triState(conditionStatus(conds, "Ready") == "True", conditionStatus(conds, "Ready") == "False")`, "True"},
	}
	for _, tt := range tests {
		got, err := celEval(t, tt.src, vars)
		if err != nil || got != tt.want {
			t.Errorf("%s = %v (%T), %v; want %v (%T)", tt.src, got, got, err, tt.want, tt.want)
		}
	}
}

// A wrong call is a load error naming the function the config wrote.
func TestCELHyperFleetFunctionsTypeChecked(t *testing.T) {
	tests := []struct{ src, want string }{
		{`conditionAge("x", "Ready")`, "'conditionAge'"},
		{`stableFor([], "Ready", "60")`, "'stableFor'"},
		{`now(1)`, "now"},
		{`triState(1, true)`, "'triState'"},
		{`dig({}, 1)`, "'dig'"},
		{`now() + 1`, "_+_"},
	}
	for _, tt := range tests {
		_, err := celEval(t, tt.src, map[string]any{"x": nil})
		if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "_ba_") {
			t.Errorf("%s: error %v, want a load error containing %q and no internal name", tt.src, err, tt.want)
		}
	}
}

// Every helper that walks a value costs what it walks: the cost limit
// stops a loop calling one on a big list.
func TestCELHyperFleetFunctionsHaveACost(t *testing.T) {
	big := make([]any, 20000)
	for i := range big {
		big[i] = map[string]any{"type": "T", "status": "True"}
	}
	for _, src := range []string{
		`lists.range(200).all(i, conditionStatus(l, "X") == "Unknown")`,
		`lists.range(200).all(i, conditionAge(l, "X") == -1)`,
		`lists.range(200).all(i, !stableFor(l, "X", 1))`,
		`lists.range(200).all(i, statusFeedbackValue({"values": l}, "X") == "")`,
	} {
		_, err := celEval(t, src, map[string]any{"l": big})
		var cancelled interpreter.EvalCancelledError
		if !errors.As(err, &cancelled) || cancelled.Cause != interpreter.CostLimitExceeded {
			t.Errorf("%s: error %v, want the cost limit", src, err)
		}
	}
}

// The clock's hidden variable cannot be taken by a config name.
func TestCELClockVarIsReserved(t *testing.T) {
	if _, err := NewEnv([]string{"a", ClockVar}); err == nil || !strings.Contains(err.Error(), "reserved") {
		t.Fatalf("newCELEnv = %v, want the name refused as reserved", err)
	}
}
