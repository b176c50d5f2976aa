package main

import (
	"strings"
	"testing"
)

// The test files of the examples, of the chart's examples and of configs
// in the shapes of HyperFleet adapter's chart examples (kubernetes and
// maestro, run unchanged with HyperFleet's own dry-run files) pass through
// the command as a user runs it; go test ./... (make test) holds them.
func TestTestCommandRunsTheExamplesTests(t *testing.T) {
	tests := []struct {
		name, path string
		cases      int
	}{
		{"config examples", "../../config/examples", 10},
		{"chart examples", "../../charts/bundle-adapter/examples", 10},
		{"hyperfleet kubernetes chart shape", "testdata/hyperfleet-shapes/kubernetes-chart", 4},
		{"hyperfleet maestro chart shape", "testdata/hyperfleet-shapes/maestro", 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, "test", tt.path)
			if code != 0 {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
			}
			if n := strings.Count(out, "\n  ok "); n != tt.cases {
				t.Errorf("%d cases passed, want %d:\n%s", n, tt.cases, out)
			}
		})
	}
}

// A failing case is exit 1 and prints its diff; an invalid file is exit 2
// with file:line on stderr, and nothing else is printed as an error.
func TestTestCommandExitCodes(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		code    int
		wantOut string
		wantErr string
	}{
		{"no args", []string{"test"}, 2, "", "no test files"}, // documented 2 (issue 43, finding 10); was 1
		{"missing path", []string{"test", "testdata/no-such-dir"}, 2, "", "testdata/no-such-dir: no such file or directory"},
		{"folder without tests", []string{"test", "testdata/hyperfleet-dryrun"}, 2, "", "no *_test.yaml files under it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, tt.args...)
			if code != tt.code || !strings.Contains(out, tt.wantOut) || !strings.Contains(errOut, tt.wantErr) {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, out, errOut)
			}
		})
	}
}
