package celenv

import (
	"strings"
	"testing"

	"github.com/google/cel-go/common/types"
)

// toJson writes what hyperfleet-adapter's toJson writes (encoding/json of
// the value: compact, map keys sorted, integral doubles as integers, <, >
// and & escaped, NaN and infinities refused), byte for byte, from any
// build. Where the anchor's output does not describe the value (CEL null
// as 0, a map or list built in the expression as an error or as
// {"Adapter":{}}, a nested duration as {"Duration":n}) the value is
// encoded as encoding/json encodes its Go counterpart (docs/migration.md,
// "Different on purpose").
func TestCELToJSONExactBytes(t *testing.T) {
	data := map[string]any{
		"z": int64(1), "a": 1.5, "f1": 1.0, "big": 1e21, "n": nil,
		"s":      "<a&b>\u2028\"\\\n",
		"nested": map[string]any{"y": []any{int64(1), "x", nil, true, 2.0}},
		"i64":    int64(9007199254740993),
		"u":      uint64(18446744073709551615),
	}
	tests := []struct {
		expr, want, wantErr string
	}{
		// the anchor's answers (encoding/json of the value)
		{expr: `toJson(data)`, want: `{"a":1.5,"big":1e+21,"f1":1,"i64":9007199254740993,"n":null,"nested":{"y":[1,"x",null,true,2]},"s":"\u003ca\u0026b\u003e\u2028\"\\\n","u":18446744073709551615,"z":1}`},
		{expr: `toJson(data.nested)`, want: `{"y":[1,"x",null,true,2]}`},
		{expr: `toJson(["production", "tier-1"])`, want: `["production","tier-1"]`},
		{expr: `toJson([1, 2.5, "x", true, 1.0, -0.0])`, want: `[1,2.5,"x",true,1,-0]`},
		{expr: `toJson(1.0)`, want: `1`},
		{expr: `toJson(1.5)`, want: `1.5`},
		{expr: `toJson(1e20)`, want: `100000000000000000000`},
		{expr: `toJson(1e21)`, want: `1e+21`},
		{expr: `toJson(0.000001)`, want: `0.000001`},
		{expr: `toJson(0.0000001)`, want: `1e-7`},
		{expr: `toJson(9007199254740993)`, want: `9007199254740993`},
		{expr: `toJson(18446744073709551615u)`, want: `18446744073709551615`},
		{expr: `toJson("<a>&")`, want: `"\u003ca\u003e\u0026"`},
		{expr: `toJson("\u00e9\x01")`, want: `"é\u0001"`},
		{expr: `toJson(true)`, want: `true`},
		{expr: `toJson(b"abc")`, want: `"YWJj"`},
		{expr: `toJson(timestamp("2024-01-01T00:00:00.5Z"))`, want: `"2024-01-01T00:00:00.5Z"`},
		{expr: `toJson(duration("1s"))`, want: `1000000000`},
		{expr: `toJson(data.?z)`, want: `1`},
		{expr: `toJson(data.?missing)`, want: `null`},
		{expr: `toJson(int)`, want: `"int"`},
		{expr: `toJson(double("NaN"))`, wantErr: "unsupported value: NaN"},
		{expr: `toJson(double("-Inf"))`, wantErr: "unsupported value: -Inf"},
		// the anchor gives 0, [0], an error, {"Adapter":{}} or {"Duration":n}
		{expr: `toJson(null)`, want: `null`},
		{expr: `toJson([null, dig(data, "no.such")])`, want: `[null,null]`},
		{expr: `toJson({"b": 1, "a": {"d": [1.0, null], "c": "<"}})`, want: `{"a":{"c":"\u003c","d":[1,null]},"b":1}`},
		{expr: `toJson({2: "x", 10: "y"})`, want: `{"10":"y","2":"x"}`},
		{expr: `toJson([data.nested, [1]])`, want: `[{"y":[1,"x",null,true,2]},[1]]`},
		{expr: `toJson([duration("1s"), timestamp("2024-01-01T00:00:00Z")])`, want: `[1000000000,"2024-01-01T00:00:00Z"]`},
		{expr: `toJson({true: 1})`, wantErr: "map key"},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			got, err := celEval(t, tt.expr, map[string]any{"data": data})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got %v, %v; want an error with %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

// celJSONBound stays an upper bound of toJson's output now that <, > and
// & are written as six bytes each (\u003c): the size check before encoding
// refuses what would pass the limit.
func TestCELJSONBoundCountsHTMLEscapes(t *testing.T) {
	for _, s := range []string{"<<<<<<<<<<", "a&b>c", "\u2028x\"\\\x01", strings.Repeat("<>&", 100)} {
		v := types.String(s)
		out := celToJSON(v)
		got, ok := out.(types.String)
		if !ok {
			t.Fatalf("%q: %v", s, out)
		}
		if bound := celJSONBound(v, 1<<20); bound < len(got) {
			t.Errorf("%q: bound %d below the encoded %d bytes %s", s, bound, len(got), got)
		}
	}
}
