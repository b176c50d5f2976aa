package adapter

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"testing"
)

// payloadJSON writes the bytes json.Marshal writes (nil where it fails),
// for payloads it writes itself and payloads it leaves to json.Marshal.
func TestPayloadJSONIsMarshal(t *testing.T) {
	cases := []struct {
		name  string
		v     any
		plain bool // written without json.Marshal
	}{
		{"nil", nil, true},
		{"scalars", map[string]any{"b": true, "f": false, "i": int64(-42), "n": nil, "s": "x y", "u": uint64(math.MaxUint64),
			"int": 7, "min": int64(math.MinInt64), "e": ""}, true},
		{"key order", map[string]any{"b": int64(1), "a": int64(2), "B": int64(3), "aa": int64(4), "": int64(5), "a b": int64(6)}, true},
		{"nested", map[string]any{"conditions": []any{map[string]any{"type": "Applied", "status": "True"}, []any{}, map[string]any{}},
			"data": map[string]any{"bundles": map[string]any{"x": map[string]any{"pendingSeconds": int64(0)}}}}, true},
		{"nil map and list", map[string]any{"m": map[string]any(nil), "l": []any(nil)}, true},
		{"empty", map[string]any{}, true},
		{"float", map[string]any{"f": 1.5}, false},
		{"whole float", map[string]any{"f": 2.0}, false},
		{"tiny float", []any{1e-7, 1e21, -0.0}, false},
		{"NaN", map[string]any{"f": math.NaN()}, false},
		{"quote", "a\"b", false},
		{"backslash", map[string]any{"k": `a\b`}, false},
		{"html", []any{"<a>", "x&y"}, false},
		{"control", "a\nb\tc\u0001", false},
		{"DEL", "a\x7f", false},
		{"unicode", "héllo ✓ \u2028", false},
		{"invalid UTF-8", "\xff\xfe", false},
		{"key needing escape", map[string]any{"a<b": int64(1)}, false},
		{"bytes", map[string]any{"b": []byte("hi")}, false},
		{"named string", map[string]any{"op": Operation("create")}, false},
		{"string map", map[string]any{"labels": map[string]string{"a": "b"}}, false},
		{"int32", int32(3), false},
		{"channel", map[string]any{"c": make(chan int)}, false},
	}
	for _, c := range cases {
		want, err := json.Marshal(c.v)
		if err != nil {
			want = nil
		}
		if got := payloadJSON(c.v); !bytes.Equal(got, want) {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, want)
		}
		if _, plain := appendPlainJSON(nil, c.v); plain != c.plain {
			t.Errorf("%s: written without json.Marshal %v, want %v", c.name, plain, c.plain)
		}
	}
}

// The onprem example's status payload of an unchanged event is written
// without json.Marshal, with json.Marshal's bytes.
func TestPayloadJSONOfTheOnpremStatus(t *testing.T) {
	r, pl := unchangedRun(t)
	v, err := r.build(context.Background(), pl.Compiled)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(v)
	got, plain := appendPlainJSON(nil, v)
	if !plain || !bytes.Equal(got, want) {
		t.Fatalf("written without json.Marshal %v:\n got %s\nwant %s", plain, got, want)
	}
}
