package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// The figures bench/README.md shows are what the report draws: each folder
// bench/figures/<date>-<machine>/ holds the run results of one recorded
// sweep, and bench/figures/<date>-<machine>-results.svg is the report's
// drawing of them (go test -update redraws it after the drawing changed).
func TestCheckedInFigures(t *testing.T) {
	dirs, err := filepath.Glob("../figures/*")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, dir := range dirs {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			continue
		}
		n++
		t.Run(filepath.Base(dir), func(t *testing.T) {
			files, err := filepath.Glob(filepath.Join(dir, "*.json"))
			if err != nil || len(files) == 0 {
				t.Fatalf("no run results in %s: %v", dir, err)
			}
			out := t.TempDir()
			var stdout, stderr bytes.Buffer
			if code := run(out, files, &stdout, &stderr); code == 2 {
				t.Fatalf("the report fails: %s", stderr.String())
			}
			got, err := os.ReadFile(filepath.Join(out, "results.svg"))
			if err != nil {
				t.Fatal(err)
			}
			path := dir + "-results.svg"
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (go test -update draws it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s is not what the report draws from %s (go test -update redraws it; look at it first)", path, dir)
			}
		})
	}
	if n == 0 {
		t.Fatal("no recorded figures under bench/figures")
	}
}
