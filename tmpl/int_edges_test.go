package tmpl

import (
	"strings"
	"testing"
	"time"
)

// int and int64 at int64's edges (issue 28 #13): both ends are exact, one
// past either end is refused (before, "-9223372036854775809" rendered
// -2^63 through float64 while "9223372036854775808" was refused).
func TestIntEdges(t *testing.T) {
	cases := []struct {
		src, want, err string
	}{
		{`{{ int64 "-9223372036854775808" }}`, "-9223372036854775808", ""},
		{`{{ int64 "9223372036854775807" }}`, "9223372036854775807", ""},
		{`{{ int64 "-9223372036854775809" }}`, "", "out of range"},
		{`{{ int64 "9223372036854775808" }}`, "", "out of range"},
		{`{{ int "-9223372036854775809" }}`, "", "out of range"},
		{`{{ int64 "-9223372036854775809.5" }}`, "", "out of range"},
		{`{{ int64 "-1e19" }}`, "", "out of range"},
		{`{{ int64 "1e19" }}`, "", "out of range"},
		{`{{ int64 "-9.2e18" }}`, "-9200000000000000000", ""},
		{`{{ int64 " 42 " }}`, "42", ""},
	}
	for _, c := range cases {
		t.Run(c.src, func(t *testing.T) {
			tm, err := Parse("t", c.src)
			if err != nil {
				t.Fatal(err)
			}
			got, err := tm.Execute(map[string]any{}, time.Time{})
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("%s = %q, %v; want an error containing %q", c.src, got, err, c.err)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("%s = %q, %v; want %q", c.src, got, err, c.want)
			}
		})
	}
}
