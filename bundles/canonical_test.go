package bundles

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

func TestCanonical(t *testing.T) {
	type named string
	tests := []struct {
		name string
		in   any
		want string
	}{
		{"null", nil, `null`},
		{"bools", []any{true, false}, `[true,false]`},
		{"sorted keys", map[string]any{"b": 1, "a": 2, "B": 3, "aa": 4, "": 5}, `{"":5,"B":3,"a":2,"aa":4,"b":1}`},
		{"nested", map[string]any{"z": []any{map[string]any{"y": nil, "x": "v"}}, "a": map[string]any{}}, `{"a":{},"z":[{"x":"v","y":null}]}`},
		{"no html escaping", "<a href=\"x\">&</a>", `"<a href=\"x\">&</a>"`},
		{"escapes", "q\" b\\ \b\f\n\r\t \x01 \x1f \u2028 \u2029 é ☃", `"q\" b\\ \b\f\n\r\t \u0001 \u001f \u2028 \u2029 é ☃"`},
		{"invalid utf8", "a\xffb", `"a\ufffdb"`},
		{"empty list", []any{}, `[]`},
		{"int kinds", []any{int8(-8), int16(16), int32(32), int64(-64), 7, uint(1), uint8(8), uint16(16), uint32(32), uint64(math.MaxUint64)},
			`[-8,16,32,-64,7,1,8,16,32,18446744073709551615]`},
		{"floats", []any{1.0, 1.5, -0.0, 0.1, 1e20, 1e21, 1e-7, 123456.789, float32(0.1), float32(3)},
			`[1,1.5,0,0.1,100000000000000000000,1e+21,1e-7,123456.789,0.1,3]`},
		{"json numbers", []any{json.Number("1"), json.Number("1.0"), json.Number("1e0"), json.Number("-0"), json.Number("2.50"), json.Number("123456789012345678901234567890")},
			`[1,1,1,0,2.5,1.2345678901234568e+29]`},
		{"typed maps and slices", map[string]any{"s": []string{"b", "a"}, "m": map[string]string{"y": "2", "x": "1"}, "i": map[string]int{"k": 1}, "a": [2]int{1, 2}},
			`{"a":[1,2],"i":{"k":1},"m":{"x":"1","y":"2"},"s":["b","a"]}`},
		{"named string and pointer", []any{named("n"), &[]any{1}, (*int)(nil)}, `["n",[1],null]`},
		{"bytes", []byte("hi"), `"aGk="`},
		{"marshaler", time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC), `"2024-01-02T03:04:05Z"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Canonical(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Fatalf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

// 1, 1.0, 1e0 and every int kind encode identically; so do equal floats of
// different spellings.
func TestCanonicalNumberEquivalence(t *testing.T) {
	groups := [][]any{
		{1, 1.0, float32(1), int64(1), uint8(1), json.Number("1"), json.Number("1.0"), json.Number("1e0"), json.Number("10e-1")},
		{0.25, float32(0.25), json.Number("2.5e-1"), json.Number("0.250")},
		{1e6, 1000000, json.Number("1e6"), json.Number("1000000.0")},
		{0, -0.0, json.Number("-0"), json.Number("0e10"), uint(0)},
	}
	for _, g := range groups {
		first, err := Canonical(g[0])
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range g[1:] {
			got, err := Canonical(v)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, first) {
				t.Errorf("%#v encodes as %s, %#v as %s", g[0], first, v, got)
			}
		}
	}
}

func TestCanonicalErrors(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want string
	}{
		{"nan", math.NaN(), "NaN"},
		{"inf", map[string]any{"a": []any{math.Inf(1)}}, "+Inf"},
		{"bad number", json.Number("1x"), "invalid number"},
		{"struct", struct{ A int }{1}, "unsupported type"},
		{"int keys", map[int]string{1: "a"}, "map keys must be strings"},
		{"func", func() {}, "unsupported type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Canonical(tt.in)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

// Canonical output is valid JSON that decodes to the same value, and for
// sorted input it is byte-for-byte what encoding/json writes with HTML
// escaping off (encoding/json sorts map keys too).
func TestCanonicalMatchesEncodingJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []rune("ab\"\\\n\t\x00\x1f<>&é☃\u2028\U0001F600 ")
	randString := func() string {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteRune(alphabet[rng.IntN(len(alphabet))])
		}
		if rng.IntN(10) == 0 {
			b.WriteString("\xff\xfe")
		}
		return b.String()
	}
	var randValue func(depth int) any
	randValue = func(depth int) any {
		switch k := rng.IntN(8); {
		case depth > 3 || k < 2:
			return randString()
		case k == 2:
			return rng.NormFloat64() * math.Pow(10, float64(rng.IntN(50)-25))
		case k == 3:
			return rng.Int64() >> rng.IntN(64)
		case k == 4:
			return rng.IntN(2) == 0
		case k == 5:
			l := make([]any, rng.IntN(4))
			for i := range l {
				l[i] = randValue(depth + 1)
			}
			return l
		default:
			m := map[string]any{}
			for range rng.IntN(5) {
				m[randString()] = randValue(depth + 1)
			}
			return m
		}
	}
	for i := range 2000 {
		v := randValue(0)
		got, err := Canonical(v)
		if err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, bytes.TrimSuffix(want.Bytes(), []byte("\n"))) {
			t.Fatalf("case %d: %#v\ncanonical    %s\nencoding/json %s", i, v, got, want.Bytes())
		}
		if !json.Valid(got) {
			t.Fatalf("case %d: invalid JSON %s", i, got)
		}
	}
}

func TestCanonicalDoesNotAliasPool(t *testing.T) {
	a, _ := Canonical(map[string]any{"a": "first"})
	b, _ := Canonical(map[string]any{"b": "second"})
	if string(a) != `{"a":"first"}` || string(b) != `{"b":"second"}` {
		t.Fatalf("results alias a pooled buffer: %s %s", a, b)
	}
}
