package task

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/bundle-adapter/bundle-adapter/tmpl"
)

// A template error in a ref file names the file's line and column of the
// action, whatever the scalar's style (issue 46: errors at the spot).
func TestRefFileTemplateErrorsAtTheSpot(t *testing.T) {
	const file = "bundles/spot.yaml"
	src := strings.Join([]string{
		"apiVersion: work.open-cluster-management.io/v1", // 1
		"kind: ManifestWork",                             // 2
		"metadata:",                                      // 3
		"  name: x-{{ .missing }}",                       // 4: plain
		"  labels:",                                      // 5
		`    a: "q-{{ .missing }}"`,                      // 6: double-quoted
		"    b: 'q-{{ .missing }}'",                      // 7: single-quoted
		"  annotations:",                                 // 8
		"    lit: |",                                     // 9
		"      first line",                               // 10
		"      x {{ .missing }}",                         // 11: literal block, its 2nd line
		"    fold: >",                                    // 12
		"      one two",                                  // 13
		"      three {{ .missing }}",                     // 14: folded onto the text's first line
		"spec: {}",                                       // 15
	}, "\n")
	m, err := CompileManifestFile(file, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][2]int{ // YAML path -> file line, column of the action's field
		"metadata.name":             {4, 14},
		"metadata.labels.a":         {6, 14},
		"metadata.labels.b":         {7, 14},
		"metadata.annotations.lit":  {11, 12},
		"metadata.annotations.fold": {14, 16},
	}
	seen := 0
	tmpl.Walk(m.Tree, func(tt *tmpl.Template) {
		path := strings.TrimPrefix(tt.Name, file+":")
		w, ok := want[path]
		if !ok {
			t.Errorf("unexpected template %s", tt.Name)
			return
		}
		seen++
		_, err := tt.Execute(map[string]any{}, time.Time{})
		var se *tmpl.SpotError
		if !errors.As(err, &se) {
			t.Errorf("%s: %v, want an error at its spot", path, err)
			return
		}
		if se.File != file || se.Line != w[0] || se.Col != w[1] {
			t.Errorf("%s: at %s:%d:%d, want %s:%d:%d (%v)", path, se.File, se.Line, se.Col, file, w[0], w[1], err)
		}
		if !strings.HasPrefix(err.Error(), se.File) {
			t.Errorf("%s: the message does not start with the spot: %v", path, err)
		}
		caret := tmpl.Caret(err, "")
		lines := strings.Split(caret, "\n")
		if len(lines) != 2 || len(lines[1]) != w[1] || lines[0] != strings.Split(src, "\n")[w[0]-1] {
			t.Errorf("%s: caret\n%s", path, caret)
		}
	})
	if seen != len(want) {
		t.Errorf("%d templates, want %d", seen, len(want))
	}
}

// A template that does not parse names the file's line of its scalar.
func TestRefFileTemplateParseErrorAtTheSpot(t *testing.T) {
	src := "apiVersion: v1\nkind: ManifestWork\nmetadata:\n  name: \"{{ .x \"\nspec: {}\n"
	_, err := CompileManifestFile("bundles/bad.yaml", []byte(src))
	var se *tmpl.SpotError
	if !errors.As(err, &se) || se.Line != 4 {
		t.Fatalf("%v, want an error at bundles/bad.yaml:4", err)
	}
}
