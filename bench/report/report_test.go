package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func fixtures(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", dir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures in testdata/%s: %v", dir, err)
	}
	return files
}

// The sweep fixture (stock and pooled at 1,000, 10,000 and 50,000 clusters)
// draws testdata/sweep.svg and writes testdata/sweep.md.
func TestGolden(t *testing.T) {
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	if code := run(out, fixtures(t, "sweep"), &stdout, &stderr); code != 1 {
		t.Fatalf("exit %d, want 1 (the fixture misses floors); stderr: %s", code, stderr.String())
	}
	for _, g := range []struct{ file, golden string }{{"results.svg", "sweep.svg"}, {"results.md", "sweep.md"}} {
		got, err := os.ReadFile(filepath.Join(out, g.file))
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join("testdata", g.golden)
		if *update {
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test -update to write it)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from testdata/%s (go test -update rewrites it; look at it first)", g.file, g.golden)
		}
	}
}

// The exit code and stderr name each missed floor, with its run.
func TestExit(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`{"clusters": 5}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		files  []string
		code   int
		stderr []string
	}{
		{name: "every floor met", files: fixtures(t, "pass"), code: 0},
		{name: "misses", files: fixtures(t, "sweep"), code: 1, stderr: []string{
			"14 floor(s) missed",
			"MISS unchanged events: 344 events/s, limit >= 1000 (stock Maestro, 1,000 clusters)",
			"MISS Maestro requests per unchanged event: 1.00, limit = 0 (pooled Maestro, 50,000 clusters)",
			"MISS paced latency p99: 61.0 ms, limit <= 50 (stock Maestro, 50,000 clusters)",
		}},
		{name: "no runs", code: 2, stderr: []string{"no run results"}},
		{name: "not a run", files: []string{bad}, code: 2, stderr: []string{"not a run of bench/load"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := run(t.TempDir(), c.files, &stdout, &stderr); code != c.code {
				t.Errorf("exit %d, want %d; stderr: %s", code, c.code, stderr.String())
			}
			for _, s := range c.stderr {
				if !strings.Contains(stderr.String(), s) {
					t.Errorf("stderr lacks %q:\n%s", s, stderr.String())
				}
			}
		})
	}
}

// bench/results.json holds every run whole, in order, and the misses.
func TestResultsJSON(t *testing.T) {
	out := t.TempDir()
	run(out, fixtures(t, "sweep"), &bytes.Buffer{}, &bytes.Buffer{})
	data, err := os.ReadFile(filepath.Join(out, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Runs []struct {
			Mode     string `json:"mode"`
			Clusters int    `json:"clusters"`
			Requests any    `json:"maestro_requests_per_unchanged_event"`
			Floors   []any  `json:"floors"`
		} `json:"runs"`
		Missed []string `json:"missed"`
	}
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, r := range got.Runs {
		order = append(order, r.Mode+" "+thousands(r.Clusters))
		if r.Requests == nil || len(r.Floors) == 0 {
			t.Errorf("%s %d: run not kept whole", r.Mode, r.Clusters)
		}
	}
	want := "stock 1,000|pooled 1,000|stock 10,000|pooled 10,000|stock 50,000|pooled 50,000"
	if strings.Join(order, "|") != want {
		t.Errorf("runs %v, want %s", order, want)
	}
	if len(got.Missed) != 14 {
		t.Errorf("%d misses, want 14: %v", len(got.Missed), got.Missed)
	}
}

func TestNiceStep(t *testing.T) {
	for _, c := range []struct{ raw, want float64 }{{0, 1}, {0.7, 1}, {1.2, 2}, {3, 5}, {7, 10}, {110, 200}, {2200, 5000}} {
		if got := niceStep(c.raw); got != c.want {
			t.Errorf("niceStep(%v) = %v, want %v", c.raw, got, c.want)
		}
	}
}
