package runresults

import (
	"encoding/json"
	"testing"
)

// What bench/load writes of a Maybe, bench/report reads back as it was,
// and both print it alike.
func TestMaybeRoundTrip(t *testing.T) {
	cases := []struct {
		name   string
		m      Maybe
		json   string
		string string
	}{
		{name: "measured", m: Measured(0.0042), json: `0.0042`, string: "0.004"},
		{name: "measured zero", m: Measured(0), json: `0`, string: "0"},
		{name: "not measured", m: Maybe{}, json: `"n/a"`, string: "n/a"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			js, err := json.Marshal(c.m)
			if err != nil || string(js) != c.json {
				t.Fatalf("Marshal = %s, %v; want %s", js, err, c.json)
			}
			var back Maybe
			if err := json.Unmarshal(js, &back); err != nil || back != c.m {
				t.Fatalf("Unmarshal(%s) = %+v, %v; want %+v", js, back, err, c.m)
			}
			if got := back.String(); got != c.string {
				t.Errorf("String = %q, want %q", got, c.string)
			}
		})
	}
}

// A key missing from an older results.json reads as not measured.
func TestMaybeAbsent(t *testing.T) {
	var r struct {
		M Maybe `json:"m"`
	}
	if err := json.Unmarshal([]byte(`{}`), &r); err != nil || r.M.OK || r.M.String() != "n/a" {
		t.Errorf("absent = %+v, %v; want not measured", r.M, err)
	}
}

func TestNum(t *testing.T) {
	cases := []struct {
		v    float64
		want string
	}{
		{0, "0"}, {1234.6, "1235"}, {-150, "-150"}, {12.34, "12.3"}, {0.5, "0.50"}, {0.01234, "0.012"},
	}
	for _, c := range cases {
		if got := Num(c.v); got != c.want {
			t.Errorf("Num(%v) = %q, want %q", c.v, got, c.want)
		}
	}
}
