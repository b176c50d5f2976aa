package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/bundle-adapter/bundle-adapter/bench/internal/runresults"
)

// sideBySideReportCommand compares the two contenders' results
// (`bench-load side-by-side-report --out DIR ANCHOR.json OURS.json`) against
// issue 47's floors, writes side-by-side.md and side-by-side.json into
// --out, prints the table and exits 1 when a floor is missed.
const sideBySideReportCommand = "side-by-side-report"

// Issue 47's floors against the anchor, its example config unchanged.
const (
	// floorUnchangedVsAnchor: unchanged events per second over the rounds
	// after the create round, ours over the anchor's.
	floorUnchangedVsAnchor = 20.0
	// floorCreatesVsAnchor: creates per second to the one consumer with no
	// agent, ours over the anchor's.
	floorCreatesVsAnchor = 1.0
)

// sbsSummary is a contender's figures for the comparison.
type sbsSummary struct {
	Contender             string  `json:"contender"`
	CreatesPerS           float64 `json:"creates_per_s"`
	UnchangedPerS         float64 `json:"unchanged_events_per_s"`
	UnchangedEvents       int     `json:"unchanged_events"`
	RESTPerUnchangedEvent float64 `json:"maestro_rest_requests_per_unchanged_event"`
	RESTPerCreateEvent    float64 `json:"maestro_rest_requests_per_create_event"`
	Unreported            int     `json:"unreported"` // lost or failed, every round
	Bad                   int     `json:"bad"`        // reported without Health True
	FirstProblem          string  `json:"first_problem,omitempty"`
}

// summarize derives a contender's figures: the create round, and the
// unchanged rounds taken together (their events over their summed time).
func summarize(r *sbsResult) sbsSummary {
	s := sbsSummary{Contender: r.Contender}
	var secs float64
	var rest int64
	for i, round := range r.Rounds {
		s.Unreported += round.Lost + round.Failed
		s.Bad += round.Bad
		if s.FirstProblem == "" {
			s.FirstProblem = cmp.Or(round.FirstError, round.FirstBad)
		}
		var n int64
		for _, c := range round.MaestroREST {
			n += c
		}
		if i == 0 {
			s.CreatesPerS = round.PerS
			if round.Events > 0 {
				s.RESTPerCreateEvent = float64(n) / float64(round.Events)
			}
			continue
		}
		s.UnchangedEvents += round.Events
		secs += round.Seconds
		rest += n
	}
	if secs > 0 {
		s.UnchangedPerS = float64(s.UnchangedEvents) / secs
	}
	if s.UnchangedEvents > 0 {
		s.RESTPerUnchangedEvent = float64(rest) / float64(s.UnchangedEvents)
	}
	return s
}

// sbsReport is side-by-side.json.
type sbsReport struct {
	Clusters int                `json:"clusters"`
	Agent    string             `json:"agent"`
	Anchor   sbsSummary         `json:"anchor"`
	Ours     sbsSummary         `json:"bundle_adapter"`
	Floors   []runresults.Floor `json:"floors"`
}

// compare checks the floors. A contender with events unreported or
// reported unhealthy has no rate to compare: that floor is a MISS naming
// why, never a ratio of a partial run.
func compare(anchor, ours *sbsResult) (*sbsReport, error) {
	if anchor.Contender != "anchor" || ours.Contender != "bundle-adapter" {
		return nil, fmt.Errorf("expected the anchor's results then bundle-adapter's, got %q and %q", anchor.Contender, ours.Contender)
	}
	if anchor.Clusters != ours.Clusters || anchor.Agent != ours.Agent || len(anchor.Rounds) != len(ours.Rounds) {
		return nil, fmt.Errorf("the runs differ: clusters %d/%d, agent %s/%s, rounds %d/%d",
			anchor.Clusters, ours.Clusters, anchor.Agent, ours.Agent, len(anchor.Rounds), len(ours.Rounds))
	}
	rep := &sbsReport{Clusters: ours.Clusters, Agent: ours.Agent, Anchor: summarize(anchor), Ours: summarize(ours)}
	a, o := rep.Anchor, rep.Ours
	rep.Floors = append(rep.Floors, ratioFloor(fmt.Sprintf("unchanged events/s over the %d rounds after the creates, vs the anchor", len(ours.Rounds)-1),
		o, a, o.UnchangedPerS, a.UnchangedPerS, floorUnchangedVsAnchor))
	creates := ratioFloor("creates/s to one consumer, vs the anchor", o, a, o.CreatesPerS, a.CreatesPerS, floorCreatesVsAnchor)
	if ours.Agent != "none" && creates.Verdict != "MISS" {
		creates.Verdict, creates.Note = "N/A", "the floor is set with no agent; with one, see the one-consumer phase's ceiling floor"
	}
	rep.Floors = append(rep.Floors, creates)
	return rep, nil
}

// ratioFloor is ours/anchor >= lim, a MISS when either run is partial.
func ratioFloor(name string, o, a sbsSummary, ov, av, lim float64) runresults.Floor {
	f := runresults.Floor{Name: name, Unit: "x", Limit: fmt.Sprintf(">= %gx", lim)}
	switch {
	case o.Unreported+o.Bad > 0:
		f.Verdict, f.Note = "MISS", fmt.Sprintf("bundle-adapter: %d unreported, %d unhealthy (%s)", o.Unreported, o.Bad, o.FirstProblem)
	case a.Unreported+a.Bad > 0:
		f.Verdict, f.Note = "MISS", fmt.Sprintf("the anchor: %d unreported, %d unhealthy (%s): no figure to compare with", a.Unreported, a.Bad, a.FirstProblem)
	case av <= 0:
		f.Verdict, f.Note = "MISS", "the anchor's rate is 0"
	default:
		f.Measured = ov / av
		f.Verdict = verdict(f.Measured >= lim)
		f.Note = fmt.Sprintf("%s vs %s per second", runresults.Num(ov), runresults.Num(av))
	}
	return f
}

func runSideBySideReportCommand(args []string) int {
	fs := flag.NewFlagSet("bench-load side-by-side-report", flag.ContinueOnError)
	out := fs.String("out", "bench", "folder of side-by-side.md and side-by-side.json")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 2 {
		fmt.Fprintln(os.Stderr, "side-by-side-report: name the anchor's sidebyside-anchor.json, then sidebyside-bundle-adapter.json")
		return 2
	}
	rep, err := loadAndCompare(fs.Arg(0), fs.Arg(1))
	if err == nil {
		err = rep.write(*out, os.Stdout)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "side-by-side-report:", err)
		return 1
	}
	for _, f := range rep.Floors {
		if f.Verdict == "MISS" {
			return 1
		}
	}
	return 0
}

func loadAndCompare(anchorPath, oursPath string) (*sbsReport, error) {
	var rs [2]sbsResult
	for i, p := range []string{anchorPath, oursPath} {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(data, &rs[i]); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		if len(rs[i].Rounds) < 2 {
			return nil, fmt.Errorf("%s: %d rounds; a create round and at least one unchanged round are needed", p, len(rs[i].Rounds))
		}
	}
	return compare(&rs[0], &rs[1])
}

// write writes side-by-side.json and .md into dir and the table to w.
func (r *sbsReport) write(dir string, w io.Writer) error {
	md := r.markdown()
	return errors.Join(
		writeJSONFile(dir, "side-by-side.json", r),
		os.WriteFile(filepath.Join(dir, "side-by-side.md"), []byte(md), 0o644),
		func() error { _, err := io.WriteString(w, md); return err }())
}

func (r *sbsReport) markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "## Side by side with hyperfleet-adapter: %d clusters on one consumer, agent: %s\n\n", r.Clusters, r.Agent)
	b.WriteString("| adapter | creates/s | unchanged events/s | Maestro REST requests per create event | per unchanged event | unreported | unhealthy |\n|---|---|---|---|---|---|---|\n")
	for _, s := range []sbsSummary{r.Anchor, r.Ours} {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %d | %d |\n", s.Contender, runresults.Num(s.CreatesPerS), runresults.Num(s.UnchangedPerS),
			runresults.Num(s.RESTPerCreateEvent), runresults.Num(s.RESTPerUnchangedEvent), s.Unreported, s.Bad)
	}
	b.WriteString("\n| floor | measured | limit | result | note |\n|---|---|---|---|---|\n")
	for _, f := range r.Floors {
		m := "-"
		if f.Measured > 0 {
			m = runresults.Num(f.Measured) + "x"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", f.Name, m, f.Limit, f.Verdict, f.Note)
	}
	return b.String()
}
