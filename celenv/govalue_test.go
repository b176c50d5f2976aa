package celenv

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/bundle-adapter/bundle-adapter/internal/configfile"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// GoValue and toJson (celJSONValue) share one walk but must encode a few
// leaves differently. toJson's values must encode to hyperfleet-adapter's
// toJson bytes (TestCELToJSONExactBytes): a duration as its nanoseconds,
// a timestamp as encoding/json writes a time.Time (in its own zone), int
// and uint map keys in decimal.
// GoValue's are what captures, params and payload expressions have always
// bound: text/template prints them and the status body carries them, so a
// timestamp is RFC 3339 text in UTC (docs/migration.md: now() is "RFC
// 3339, UTC") and a duration Go's text; were they time.Time and
// time.Duration, a template would print "2024-01-01 00:00:00 +0000 UTC"
// and a status body 90000000000; and a map key that is not a string
// stays an error there, as it always was. Every other value encodes alike.
func TestGoValueEncodings(t *testing.T) {
	tests := []struct {
		name, expr string
		// the Go value as a template prints it and as a status body
		// carries it, or the error; for GoValue and for toJson
		goText, goJSON, toJSONText, toJSON string
	}{
		{name: "timestamp", expr: `timestamp("2024-01-01T02:00:00.5+02:00")`,
			goText: "2024-01-01T00:00:00.5Z", goJSON: `"2024-01-01T00:00:00.5Z"`,
			toJSONText: "2024-01-01 02:00:00.5 +0200 +0200", toJSON: `"2024-01-01T02:00:00.5+02:00"`},
		{name: "duration", expr: `duration("90s")`,
			goText: "1m30s", goJSON: `"1m30s"`, toJSONText: "1m30s", toJSON: `90000000000`},
		{name: "int map key", expr: `{1: "a"}`,
			goText: "error: map key 1 is not a string", toJSONText: "map[1:a]", toJSON: `{"1":"a"}`},
		{name: "bool map key", expr: `{true: "a"}`,
			goText: "error: map key true is not a string", toJSONText: "error: a map key of type bool cannot be encoded"},
		// alike
		{name: "type", expr: `int`, goText: "int", goJSON: `"int"`, toJSONText: "int", toJSON: `"int"`},
		{name: "null", expr: `null`, goText: "<nil>", goJSON: `null`, toJSONText: "<nil>", toJSON: `null`},
		{name: "nested", expr: `{"a": [1, 2u, 2.5, "x", true, b"y", null], "o": optional.of({"b": 1}), "n": optional.none()}`,
			goText:     "map[a:[1 2 2.5 x true [121] <nil>] n:<nil> o:map[b:1]]",
			goJSON:     `{"a":[1,2,2.5,"x",true,"eQ==",null],"n":null,"o":{"b":1}}`,
			toJSONText: "map[a:[1 2 2.5 x true [121] <nil>] n:<nil> o:map[b:1]]",
			toJSON:     `{"a":[1,2,2.5,"x",true,"eQ==",null],"n":null,"o":{"b":1}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := celEvalVal(t, tt.expr)
			text, js := encode(GoValue(v))
			if text != tt.goText || js != tt.goJSON {
				t.Errorf("GoValue: %s, %s; want %s, %s", text, js, tt.goText, tt.goJSON)
			}
			text, js = encode(celJSONValue(v))
			if text != tt.toJSONText || js != tt.toJSON {
				t.Errorf("toJson: %s, %s; want %s, %s", text, js, tt.toJSONText, tt.toJSON)
			}
		})
	}
}

// Both encodings stop at 10,000 levels of nesting.
func TestGoValueDepthBound(t *testing.T) {
	nest := func(depth int) ref.Val {
		var v any = "leaf"
		for range depth {
			v = []any{v}
		}
		return types.DefaultTypeAdapter.NativeToValue(v)
	}
	for _, enc := range []struct {
		name string
		conv func(ref.Val) (any, error)
	}{{"GoValue", GoValue}, {"toJson", celJSONValue}} {
		if _, err := enc.conv(nest(maxGoValueDepth)); err != nil {
			t.Errorf("%s at %d levels: %v", enc.name, maxGoValueDepth, err)
		}
		if _, err := enc.conv(nest(maxGoValueDepth + 1)); err == nil || !strings.Contains(err.Error(), "nested more than 10000 levels") {
			t.Errorf("%s at %d levels: %v, want the depth error", enc.name, maxGoValueDepth+1, err)
		}
	}
}

// encode is a converted value as a template prints it (fmt) and as a
// status body carries it (encoding/json), or "error: ..." and "".
func encode(v any, err error) (text, js string) {
	if err != nil {
		return "error: " + err.Error(), ""
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v), "error: " + err.Error()
	}
	return fmt.Sprint(v), string(b)
}

// celCompile compiles src in a task environment with the variables vars;
// a compile error fails the test.
func celCompile(t *testing.T, src string, vars ...string) *Expr {
	t.Helper()
	env, err := NewEnv(vars)
	if err != nil {
		t.Fatal(err)
	}
	var l configfile.ErrorList
	e := &Expr{Src: src, Path: "params[0].source.expression"}
	env.Compile(&l, e)
	if len(l.Errs) > 0 {
		t.Fatalf("compile: %v", l.Errs)
	}
	return e
}

// celEvalVal evaluates a constant expression to its CEL value.
func celEvalVal(t *testing.T, src string) ref.Val {
	t.Helper()
	out, _, err := celCompile(t, src).Program.Eval(map[string]any{ClockVar: types.Timestamp{Time: celTestNow}})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
