package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bundle-adapter/bundle-adapter/internal/configfile"
)

// A CEL error names the file's line and column of the problem, through
// every YAML scalar style, and an undeclared name its nearest declared one
// (issue 46: errors at the spot).
func TestCELErrorsAtTheSpot(t *testing.T) {
	tests := []struct {
		name, expr string // expr: the YAML after "expression:"
		line, col  int
		want       string
	}{
		{"plain", "clusterID == \"x\"", 4, 17, "(did you mean 'clusterId'?)"},
		{"single-quoted", "'clusterId == clusterNmae'", 4, 31, "(did you mean 'clusterName'?)"},
		{"double-quoted", "\"clusterId == clusterNmae\"", 4, 31, "(did you mean 'clusterName'?)"},
		{"literal block", "|\n      clusterId != \"\" &&\n        clusterNmae != \"\"", 6, 9, "(did you mean 'clusterName'?)"},
		{"folded block", ">\n      clusterId != \"\" &&\n      clusterNmae != \"\"", 6, 7, "(did you mean 'clusterName'?)"},
		{"nothing near", "zzzzzzzz == 1", 4, 17, "undeclared reference to 'zzzzzzzz'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			src := "params:\n  - {name: clusterId, source: event.id}\n  - {name: clusterName, source: event.name}\npreconditions:\n  - name: check\n    expression: " + tt.expr + "\n"
			// line is counted from the precondition's "- name:" line (5): +2.
			p := filepath.Join(dir, "task.yaml")
			if err := os.WriteFile(p, []byte(src), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := LoadTaskConfig(p)
			var ce configfile.Errors
			if !errors.As(err, &ce) || len(ce) == 0 {
				t.Fatalf("%v, want a CEL error", err)
			}
			e := ce[0]
			if e.Line != tt.line+2 || e.Col != tt.col || !strings.Contains(e.Msg, tt.want) {
				t.Errorf("%s at %d:%d, want %d:%d and %q", e.Msg, e.Line, e.Col, tt.line+2, tt.col, tt.want)
			}
			if tt.name == "nothing near" && strings.Contains(e.Msg, "did you mean") {
				t.Errorf("a did-you-mean for a name far from every declared one: %s", e.Msg)
			}
			if got := strings.Split(configfile.Caret(e.Source, e.Col, ""), "\n"); len(got) != 2 || len(got[1]) != tt.col {
				t.Errorf("caret %q", got)
			}
		})
	}
}
