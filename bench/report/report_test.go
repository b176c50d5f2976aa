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

// A run of issue 34's phases (hack/bench.sh --quick --phases all, the
// adapter of main before the adaptive budget and the refreshing view) gets
// a row in the fleet table, and each fleet floor it missed is named.
func TestFleet(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(t.TempDir(), fixtures(t, "fleet"), &stdout, &stderr); code != 1 {
		t.Fatalf("exit %d, want 1; stderr: %s", code, stderr.String())
	}
	for _, want := range []string{
		"| Maestro | clusters | creates to one consumer /s (agent's apply rate; applied /s) | Maestro requests per unchanged event, steady (view max ages) | restart: Maestro requests in the first minute (limit) | restart: paced p99 / max ms, down s, back to steady after s | unchanged events/s one / two replicas (ratio), busy cores |",
		"| pooled | 200 | 21.3 (400/s; 21.2) | 0.13 (2.50) | 200 (102) | 177 / 498, 0.23, 10.0 | 588 / 455 (0.77x), 2.00 of 2 |",
		"| Maestro requests in the minute after a restart | <= 102 | MISS 200 |",
	} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, stdout.String())
		}
	}
	for _, want := range []string{
		"4 floor(s) missed",
		"MISS creates to one consumer: 21.3 creates/s, limit >= 75 (pooled Maestro, 200 clusters)",
		"MISS Maestro requests per unchanged event (steady): 0.13, limit <= 0.001 (pooled Maestro, 200 clusters)",
		"MISS Maestro requests in the minute after a restart: 200, limit <= 102 (pooled Maestro, 200 clusters)",
		"MISS two replicas' unchanged events (x one): 0.77 x, limit >= 1.6 (pooled Maestro, 200 clusters)",
	} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
	var sweep bytes.Buffer
	run(t.TempDir(), fixtures(t, "sweep"), &sweep, &bytes.Buffer{})
	if strings.Contains(sweep.String(), "creates to one consumer") {
		t.Errorf("runs without the fleet phases got the fleet table:\n%s", sweep.String())
	}
}
