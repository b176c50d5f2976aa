package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/bundle-adapter/bundle-adapter/bench/internal/runresults"
)

// runResult is what the report reads of one run's results.json (bench/load);
// raw keeps all of it for bench/results.json.
type runResult struct {
	Mode                string             `json:"mode"`
	Clusters            int                `json:"clusters"`
	BundlesTracked      int                `json:"bundles_tracked"`
	UnchangedEventsPerS float64            `json:"unchanged_events_per_s"`
	CreatesPerS         float64            `json:"creates_per_s"`
	LatencyP50MS        float64            `json:"latency_p50_ms"`
	LatencyP99MS        float64            `json:"latency_p99_ms"`
	LatencyRatePerS     float64            `json:"latency_events_per_s"`
	AdapterRSSPeakMB    float64            `json:"adapter_rss_peak_mb"`
	RequestsPerEvent    runresults.Maybe   `json:"maestro_requests_per_unchanged_event"`
	Floors              []runresults.Floor `json:"floors"`
	Phases              []struct {
		Name       string  `json:"name"`
		OtherCores float64 `json:"other_busy_cores"`
	} `json:"phases"`
	fleetRun
	detail string // the run's results.md, when found next to it
	raw    json.RawMessage
}

// modeOrder puts stock before pooled, then any other setup by name.
var modeOrder = map[string]int{"stock": 0, "pooled": 1}

func loadRuns(files []string) ([]*runResult, error) {
	var runs []*runResult
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		r := &runResult{}
		if err := json.Unmarshal(data, r); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		if r.Mode == "" || r.Clusters == 0 {
			return nil, fmt.Errorf("%s: not a run of bench/load (no mode or clusters)", f)
		}
		r.raw = bytes.TrimSpace(data)
		if md, err := os.ReadFile(filepath.Join(filepath.Dir(f), "results.md")); err == nil {
			r.detail = string(md)
		}
		runs = append(runs, r)
	}
	sort.SliceStable(runs, func(i, j int) bool {
		a, b := runs[i], runs[j]
		if a.Clusters != b.Clusters {
			return a.Clusters < b.Clusters
		}
		return modeRank(a.Mode) < modeRank(b.Mode) || (modeRank(a.Mode) == modeRank(b.Mode) && a.Mode < b.Mode)
	})
	return runs, nil
}

func modeRank(m string) int {
	if r, ok := modeOrder[m]; ok {
		return r
	}
	return len(modeOrder)
}

// label names a run in messages: "stock Maestro, 1,000 clusters".
func (r *runResult) label() string {
	return fmt.Sprintf("%s Maestro, %s clusters", r.Mode, thousands(r.Clusters))
}

// otherCores is how many cores other work on the machine took during the
// unchanged phase: the run's throughput is worth as much as it left.
func (r *runResult) otherCores() string {
	for _, p := range r.Phases {
		if p.Name == "unchanged" {
			return runresults.Num(p.OtherCores)
		}
	}
	return "n/a"
}

// report is bench/results.json.
type report struct {
	Runs   []json.RawMessage `json:"runs"`
	Missed []string          `json:"missed"`
	runs   []*runResult
}

func newReport(runs []*runResult) *report {
	rep := &report{runs: runs, Missed: []string{}}
	for _, r := range runs {
		rep.Runs = append(rep.Runs, r.raw)
		for _, f := range r.Floors {
			if f.Verdict == "MISS" {
				measured := strings.TrimSpace(runresults.Num(f.Measured) + " " + f.Unit)
				rep.Missed = append(rep.Missed, fmt.Sprintf("%s: %s, limit %s (%s)", f.Name, measured, f.Limit, r.label()))
			}
		}
	}
	return rep
}

func (rep *report) write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	js, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	files := map[string][]byte{
		"results.json": append(js, '\n'),
		"results.md":   []byte(rep.markdown()),
		"results.svg":  []byte(drawSVG(rep.runs)),
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// summary is one row per run and every floor's verdict by run.
func (rep *report) summary() string {
	var b strings.Builder
	b.WriteString("## bundle-adapter bench: cost as work grows\n\n")
	b.WriteString("| Maestro | clusters | bundles | unchanged events/s | creates/s | paced p50 / p99 ms | adapter RSS peak MB | Maestro requests per unchanged event | cores taken by other work (unchanged phase) |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rep.runs {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s / %s | %s | %s | %s |\n", r.Mode, thousands(r.Clusters), thousands(r.BundlesTracked),
			runresults.Num(r.UnchangedEventsPerS), runresults.Num(r.CreatesPerS), runresults.Num(r.LatencyP50MS), runresults.Num(r.LatencyP99MS), runresults.Num(r.AdapterRSSPeakMB), r.RequestsPerEvent.String(),
			r.otherCores())
	}
	b.WriteString("\n")
	b.WriteString(rep.fleetSummary())
	b.WriteString("| floor | limit |")
	for _, r := range rep.runs {
		fmt.Fprintf(&b, " %s %s |", r.Mode, thousands(r.Clusters))
	}
	b.WriteString("\n|---|---|" + strings.Repeat("---|", len(rep.runs)) + "\n")
	for _, name := range floorNames(rep.runs) {
		limit := ""
		var cells []string
		for _, r := range rep.runs {
			cell := "—"
			for _, f := range r.Floors {
				if f.Name == name {
					limit, cell = f.Limit, fmt.Sprintf("%s %s", f.Verdict, runresults.Num(f.Measured))
					if f.Verdict == "N/A" {
						cell = "N/A"
					}
				}
			}
			cells = append(cells, cell)
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", name, limit, strings.Join(cells, " | "))
	}
	b.WriteString("\n")
	return b.String()
}

// floorNames lists the floors in the order the runs give them.
func floorNames(runs []*runResult) []string {
	var names []string
	seen := map[string]bool{}
	for _, r := range runs {
		for _, f := range r.Floors {
			if !seen[f.Name] {
				seen[f.Name] = true
				names = append(names, f.Name)
			}
		}
	}
	return names
}

func (rep *report) markdown() string {
	var b strings.Builder
	b.WriteString(rep.summary())
	if len(rep.Missed) > 0 {
		b.WriteString("Missed floors:\n\n")
		for _, m := range rep.Missed {
			fmt.Fprintf(&b, "- %s\n", m)
		}
		b.WriteString("\n")
	}
	b.WriteString("The curves: results.svg.\n\n")
	for _, r := range rep.runs {
		b.WriteString(r.detail)
	}
	return b.String()
}

// thousands writes n with comma separators: 50,000.
func thousands(n int) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
