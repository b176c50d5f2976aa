package bundles

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/bundle-adapter/bundle-adapter/task"
)

var testNow = time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)

func testParams() map[string]any {
	return map[string]any{
		"clusterId":  "C1-abc",
		"generation": 7,
		"spec":       map[string]any{"version": "4.17", "nodes": 3},
	}
}

func compileFixture(tb testing.TB, name string) *task.Manifest {
	tb.Helper()
	file := filepath.Join("testdata", name)
	data, err := os.ReadFile(file)
	if err != nil {
		tb.Fatal(err)
	}
	m, err := task.CompileManifestFile(file, data)
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

func renderFixture(tb testing.TB, name string, params map[string]any) map[string]any {
	tb.Helper()
	work, err := Render(compileFixture(tb, name), params, testNow)
	if err != nil {
		tb.Fatal(err)
	}
	return work
}

func mustFingerprint(tb testing.TB, work map[string]any) string {
	tb.Helper()
	fp, err := Fingerprint(work)
	if err != nil {
		tb.Fatal(err)
	}
	return fp
}

// at walks a rendered tree by keys and indexes.
func at(tb testing.TB, tree any, steps ...any) any {
	tb.Helper()
	cur := tree
	for _, s := range steps {
		switch k := s.(type) {
		case string:
			m, ok := cur.(map[string]any)
			if !ok {
				tb.Fatalf("at %v: %T is not a map", s, cur)
			}
			cur = m[k]
		case int:
			l, ok := cur.([]any)
			if !ok || k >= len(l) {
				tb.Fatalf("at %v: %T is not a long enough list", s, cur)
			}
			cur = l[k]
		}
	}
	return cur
}
