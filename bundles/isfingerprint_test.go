package bundles

import (
	"strings"
	"testing"
)

func TestIsFingerprint(t *testing.T) {
	real, err := Fingerprint(map[string]any{"metadata": map[string]any{"name": "x"}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		s    string
		want bool
	}{
		{"what Fingerprint returns", real, true},
		{"empty", "", false},
		{"one digit short", real[1:], false},
		{"one digit more", real + "0", false},
		{"upper case", strings.ToUpper(real), strings.ToUpper(real) == real},
		{"not hex", strings.Repeat("g", 64), false},
		{"a megabyte", strings.Repeat("a", 1<<20), false},
		{"JSON in it", `"}` + real[2:], false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := IsFingerprint(tt.s); got != tt.want {
				t.Errorf("IsFingerprint(%.20q...) = %v, want %v", tt.s, got, tt.want)
			}
		})
	}
}
