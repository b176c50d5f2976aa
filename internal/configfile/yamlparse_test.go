package configfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDecodeYAML(t *testing.T) {
	bomb, err := os.ReadFile(filepath.Join("testdata", "hostile", "merge-bomb.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, in, want string
	}{
		{"one document", "a: [1, *x]\n", "unknown anchor"},
		{"aliases within bounds", "a: &x [1, 2]\nb: [*x, *x]\n", ""},
		{"nested merge keys", string(bomb), "more than 100000 YAML nodes"},
		{"self merge", "a: &a\n  <<: *a\n", "refers to a node that contains it"},
		{"two documents", "a: 1\n---\nb: 2\n", "a second YAML document"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := DecodeYAML([]byte(tt.in))
			if tt.want == "" {
				if err != nil || v == nil {
					t.Fatalf("DecodeYAML = %v, %v; want a value", v, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("DecodeYAML error %v, want %q", err, tt.want)
			}
		})
	}
}
