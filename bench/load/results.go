package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/bundle-adapter/bundle-adapter/bench/internal/runresults"
)

// Floors of issue 17, on a 2-core machine with everything on it (every run
// but where said).
const (
	floorUnchangedPerS = 1000.0
	floorCreatesPerS   = 100.0 // pooled runs only
	floorCreatesMode   = "pooled"
	floorRSSMB         = 200.0
	floorRSSBundles    = 50_000
	floorLatencyP99MS  = 50.0
	floorFingerprintMS = 1.0
	// floorAfterCreatesRequests is issue 47's: the round after the
	// creates is served from the view, which the agents' statuses of the
	// adapter's own creates filled (a few may still be on their way).
	floorAfterCreatesRequests = 0.01
	bundlesPerClusterEvt      = 2 // the onprem example's bundles
)

// results is one run's results.json (one mode, one size; bench/report
// gathers the runs). The flat numeric keys are the contract of issues 7 and
// 17; phases hold the details.
type results struct {
	Mode                        string           `json:"mode"`
	UnchangedEventsPerS         float64          `json:"unchanged_events_per_s"`
	CreatesPerS                 float64          `json:"creates_per_s"`
	LatencyP50MS                float64          `json:"latency_p50_ms"`
	LatencyP99MS                float64          `json:"latency_p99_ms"`
	LatencyRatePerS             float64          `json:"latency_events_per_s"`
	SaturatedLatencyP50MS       float64          `json:"saturated_latency_p50_ms"`
	SaturatedLatencyP99MS       float64          `json:"saturated_latency_p99_ms"`
	CreateLatencyP50MS          float64          `json:"create_latency_p50_ms"`
	CreateLatencyP99MS          float64          `json:"create_latency_p99_ms"`
	MaestroRequestsPerUnchanged runresults.Maybe `json:"maestro_requests_per_unchanged_event"`
	MaestroRequestsMetric       string           `json:"maestro_requests_metric"`
	MaestroWritesPerUnchanged   float64          `json:"maestro_writes_per_unchanged_event"`
	MaestroReadsPerEvent        float64          `json:"maestro_reads_per_event"`
	BundlesPerEvent             float64          `json:"bundles_per_event"`
	AdapterRSSMB                float64          `json:"adapter_rss_mb"`
	AdapterRSSPeakMB            float64          `json:"adapter_rss_peak_mb"`
	AgentsRSSPeakMB             float64          `json:"agents_rss_peak_mb,omitempty"` // the agents process's (--agents process)
	BundlesTracked              int              `json:"bundles_tracked"`
	Fingerprint50KBMS           float64          `json:"fingerprint_50kb_ms"`
	RenderFingerprint50KBMS     float64          `json:"render_fingerprint_50kb_ms"`
	FingerprintBytes            int              `json:"fingerprint_bundle_bytes"`
	CPUSecondsPer1000Events     float64          `json:"cpu_seconds_per_1000_events"`
	CPUSecondsPer1000Creates    float64          `json:"cpu_seconds_per_1000_create_events"`
	MaestroCPUSecondsPer1000    float64          `json:"maestro_cpu_seconds_per_1000_events"`
	MachineBusyCoresUnchanged   float64          `json:"machine_busy_cores_unchanged"`
	LostEvents                  int              `json:"lost_events"`
	FailedEvents                int              `json:"failed_events"`
	UnexpectedOutcomes          int              `json:"unexpected_outcomes"`
	Clusters                    int              `json:"clusters"`
	Consumers                   int              `json:"consumers"`
	Window                      int              `json:"window"`
	Parallelism                 int              `json:"parallelism"`
	Prefetch                    int              `json:"prefetch"`
	Cores                       int              `json:"cores"`
	AdapterMode                 string           `json:"adapter_mode"`
	AgentsMode                  string           `json:"agents_mode"`
	Started                     string           `json:"started"`
	SettleSeconds               float64          `json:"settle_s"`
	Settled                     bool             `json:"settled"`
	WarmEvents                  int              `json:"warm_events"`
	WarmSeconds                 float64          `json:"warm_s"`
	Phases                      []*phase         `json:"phases"`
	// PhasesRun is --phases; the issue-34 phases' results (nil when not
	// run) are fleet_results.go's.
	PhasesRun   string             `json:"phases_run,omitempty"`
	OneConsumer *oneConsumerResult `json:"one_consumer,omitempty"`
	Steady      *steadyResult      `json:"steady,omitempty"`
	Restart     *restartResult     `json:"restart,omitempty"`
	Replicas    *replicasResult    `json:"replicas,omitempty"`
	Floors      []runresults.Floor `json:"floors"`
}

func (r *results) phase(name string) *phase {
	for _, p := range r.Phases {
		if p.Name == name {
			return p
		}
	}
	return &phase{Outcomes: map[string]int{}}
}

// ran reports whether the run has a phase named name.
func (r *results) ran(name string) bool {
	for _, p := range r.Phases {
		if p.Name == name {
			return true
		}
	}
	return false
}

// finish derives the contract keys from the phases and checks the floors.
func (r *results) finish() {
	create, unchanged, latency := r.phase("create"), r.phase("unchanged"), r.phase("latency")
	r.UnchangedEventsPerS = unchanged.EventsPerS
	if create.Seconds > 0 {
		r.CreatesPerS = create.Creates / create.Seconds
	}

	r.LatencyP50MS, r.LatencyP99MS, r.LatencyRatePerS = latency.P50MS, latency.P99MS, latency.OfferedPerS
	r.SaturatedLatencyP50MS, r.SaturatedLatencyP99MS = unchanged.P50MS, unchanged.P99MS
	r.CreateLatencyP50MS, r.CreateLatencyP99MS = create.P50MS, create.P99MS
	r.BundlesPerEvent = bundlesPerClusterEvt
	if n := float64(unchanged.Events); n > 0 {
		r.MaestroWritesPerUnchanged = unchanged.MaestroWrites / n
		r.MaestroReadsPerEvent = unchanged.MaestroReads / n
		r.MaestroRequestsPerUnchanged = runresults.Maybe{V: unchanged.MaestroRequests / n, OK: unchanged.MaestroRequestsSeen}
		r.CPUSecondsPer1000Events = unchanged.AdapterCPU / n * 1000
		r.MaestroCPUSecondsPer1000 = unchanged.MaestroCPU / n * 1000
	}
	if n := float64(create.Events); n > 0 {
		r.CPUSecondsPer1000Creates = create.AdapterCPU / n * 1000
	}
	r.MachineBusyCoresUnchanged = unchanged.BusyCores
	for _, p := range r.Phases {
		r.LostEvents += p.Lost
		r.FailedEvents += p.Failed
		want := "unchanged/done"
		if p.Name == "create" || p.Name == phaseOneConsumer {
			want = "create/done"
		}
		for k, n := range p.Outcomes {
			if !strings.HasSuffix(k, " "+want) {
				r.UnexpectedOutcomes += n
			}
		}
		r.UnexpectedOutcomes += p.BadStatuses
	}
	r.checkFloors()
}

func (r *results) checkFloors() {
	busy := func(p *phase) string { return r.busyNote(p) }
	r.Floors = []runresults.Floor{
		atLeast("unchanged events", r.UnchangedEventsPerS, floorUnchangedPerS, "events/s", busy(r.phase("unchanged"))),
		r.requestsFloor(),
		r.afterCreatesFloor(),
		r.createsFloor(),
		r.rssFloor(),
		r.latencyFloor(),
		atMost("fingerprint of a 50 KB bundle", r.Fingerprint50KBMS, floorFingerprintMS, "ms", ""),
	}
	r.Floors = append(r.Floors, r.fleetFloors()...)
}

func atLeast(name string, v, lim float64, unit, note string) runresults.Floor {
	return runresults.Floor{Name: name, Measured: v, Unit: unit, Limit: ">= " + strconv.FormatFloat(lim, 'f', -1, 64), Verdict: verdict(v >= lim), Note: note}
}

func atMost(name string, v, lim float64, unit, note string) runresults.Floor {
	return runresults.Floor{Name: name, Measured: v, Unit: unit, Limit: "<= " + strconv.FormatFloat(lim, 'f', -1, 64), Verdict: verdict(v <= lim), Note: note}
}

func (r *results) requestsFloor() runresults.Floor {
	f := runresults.Floor{Name: "Maestro requests per unchanged event", Measured: r.MaestroRequestsPerUnchanged.V, Limit: "= 0",
		Verdict: verdict(r.MaestroRequestsPerUnchanged.V == 0), Note: "from " + r.MaestroRequestsMetric}
	if !r.MaestroRequestsPerUnchanged.OK {
		f.Verdict, f.Note = "N/A", "the adapter exposes no "+r.MaestroRequestsMetric
	}
	return f
}

// afterCreatesFloor is issue 47's floor on the round after the creates
// (the phase after-creates): N/A when it did not run or the adapter
// exposes no request counter.
func (r *results) afterCreatesFloor() runresults.Floor {
	p := r.phase("after-creates")
	const name = "Maestro requests per event in the round after the creates"
	if p.Events == 0 || !p.MaestroRequestsSeen {
		return runresults.Floor{Name: name, Limit: "<= " + strconv.FormatFloat(floorAfterCreatesRequests, 'f', -1, 64), Verdict: "N/A",
			Note: "the round after the creates was not measured, or the adapter exposes no " + r.MaestroRequestsMetric}
	}
	return atMost(name, p.MaestroRequests/float64(p.Events), floorAfterCreatesRequests, "requests/event", "issue 47: filled by the agents' statuses of the creates")
}

// latencyFloor is N/A when the latency phase did not run (--phases
// without base), rather than met by a p99 of 0.
func (r *results) latencyFloor() runresults.Floor {
	f := atMost("paced latency p99", r.LatencyP99MS, floorLatencyP99MS, "ms",
		fmt.Sprintf("publish to status, paced at %s events/s", runresults.Num(r.LatencyRatePerS)))
	if !r.ran("latency") {
		f.Verdict, f.Note = "N/A", "the latency phase was not run (--phases without base)"
	}
	return f
}

func (r *results) createsFloor() runresults.Floor {
	f := atLeast("bundle creates (pooled)", r.CreatesPerS, floorCreatesPerS, "creates/s", r.busyNote(r.phase("create")))
	if r.Mode != floorCreatesMode {
		f.Verdict, f.Note = "N/A", "checked on the pooled Maestro only"
	}
	return f
}

func (r *results) rssFloor() runresults.Floor {
	f := atMost("adapter RSS with 50,000 bundles tracked", r.AdapterRSSPeakMB, floorRSSMB, "MB (peak)", "")
	switch {
	case r.AdapterMode != "binary":
		f.Verdict, f.Note = "N/A", "in-process mode: the RSS is the harness's"
	case r.BundlesTracked < floorRSSBundles:
		f.Verdict = "N/A"
		f.Note = fmt.Sprintf("only %d bundles tracked; run --clusters %d or more to check it", r.BundlesTracked, floorRSSBundles/bundlesPerClusterEvt)
	}
	return f
}

// busyNote says how much of the machine went elsewhere during a phase.
func (r *results) busyNote(p *phase) string {
	if p.OtherCores < 0.2 {
		return ""
	}
	note := fmt.Sprintf("%s of %d busy cores went to processes outside the run's own; see below", runresults.Num(p.OtherCores), r.Cores)
	if p.PGSessions > 0 && p.Seconds > 0 {
		note += fmt.Sprintf("; PostgreSQL opened %s sessions/s for Maestro, %s per read of the adapter", runresults.Num(p.PGSessions/p.Seconds),
			ratio(p.PGSessions, p.MaestroReads))
	}
	return note
}

func verdict(ok bool) string {
	if ok {
		return "PASS"
	}
	return "MISS"
}

// write prints the markdown table to w and writes results.md and
// results.json into dir.
func (r *results) write(dir string, w io.Writer) error {
	md := r.markdown()
	if _, err := io.WriteString(w, md); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	js, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "results.json"), append(js, '\n'), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "results.md"), []byte(md), 0o644)
}

func (r *results) markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "## bundle-adapter load harness — %s Maestro, %d clusters (%d bundles), %d consumers, %d cores, adapter %s\n\n",
		r.Mode, r.Clusters, r.Clusters*bundlesPerClusterEvt, r.Consumers, r.Cores, r.AdapterMode)
	b.WriteString("| floor | measured | limit | result |\n|---|---|---|---|\n")
	for _, f := range r.Floors {
		note := ""
		if f.Note != "" {
			note = " (" + f.Note + ")"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s%s |\n", f.Name, strings.TrimSpace(runresults.Num(f.Measured)+" "+f.Unit), f.Limit, f.Verdict, note)
	}
	b.WriteString("\n| measure | value |\n|---|---|\n")
	rows := []struct {
		k string
		v string
	}{
		{"unchanged_events_per_s", runresults.Num(r.UnchangedEventsPerS)},
		{"creates_per_s (bundles)", runresults.Num(r.CreatesPerS)},
		{"latency_p50_ms / p99 (publish to status, paced at " + runresults.Num(r.LatencyRatePerS) + " events/s)", runresults.Num(r.LatencyP50MS) + " / " + runresults.Num(r.LatencyP99MS)},
		{fmt.Sprintf("saturated latency p50 / p99 ms (%d events in flight)", r.Window), runresults.Num(r.SaturatedLatencyP50MS) + " / " + runresults.Num(r.SaturatedLatencyP99MS)},
		{"create latency p50 / p99 ms", runresults.Num(r.CreateLatencyP50MS) + " / " + runresults.Num(r.CreateLatencyP99MS)},
		{"maestro_requests_per_unchanged_event (" + r.MaestroRequestsMetric + ")", r.MaestroRequestsPerUnchanged.String()},
		{"maestro_writes_per_unchanged_event", runresults.Num(r.MaestroWritesPerUnchanged)},
		{fmt.Sprintf("maestro_reads_per_event (%d bundles per event)", bundlesPerClusterEvt), runresults.Num(r.MaestroReadsPerEvent)},
		{"adapter_rss_mb (end / peak)", runresults.Num(r.AdapterRSSMB) + " / " + runresults.Num(r.AdapterRSSPeakMB)},
		{"simulated agents: where / RSS peak MB", r.AgentsMode + " / " + runresults.Num(r.AgentsRSSPeakMB)},
		{"bundles_tracked", fmt.Sprint(r.BundlesTracked)},
		{fmt.Sprintf("fingerprint_50kb_ms (%d bytes canonical; render+fingerprint %s ms)", r.FingerprintBytes, runresults.Num(r.RenderFingerprint50KBMS)), runresults.Num(r.Fingerprint50KBMS)},
		{"cpu_seconds_per_1000_events (adapter, unchanged)", runresults.Num(r.CPUSecondsPer1000Events)},
		{"cpu_seconds_per_1000_create_events (adapter)", runresults.Num(r.CPUSecondsPer1000Creates)},
		{"maestro_cpu_seconds_per_1000_events (unchanged)", runresults.Num(r.MaestroCPUSecondsPer1000)},
		{"machine busy cores during unchanged phase", runresults.Num(r.MachineBusyCoresUnchanged)},
		{"PostgreSQL sessions Maestro opened per Maestro read (unchanged phase)",
			ratio(r.phase("unchanged").PGSessions, r.phase("unchanged").MaestroReads)},
		{"HyperFleet API calls / TCP connections the adapter opened (unchanged phase)",
			fmt.Sprintf("%d / %d", r.phase("unchanged").APICalls, r.phase("unchanged").APIConns)},
		{"settle after the create phase: seconds / Maestro idle", fmt.Sprintf("%s / %t", runresults.Num(r.SettleSeconds), r.Settled)},
		{"warm-up: events / seconds (one per cluster)", fmt.Sprintf("%d / %s", r.WarmEvents, runresults.Num(r.WarmSeconds))},
		{"the round after the creates (warm-up, phase after-creates): Maestro reads per event",
			ratio(r.phase("after-creates").MaestroReads, float64(r.phase("after-creates").Events))},
		{"lost / failed events, unexpected outcomes", fmt.Sprintf("%d / %d, %d", r.LostEvents, r.FailedEvents, r.UnexpectedOutcomes)},
	}
	for _, row := range rows {
		fmt.Fprintf(&b, "| %s | %s |\n", row.k, row.v)
	}
	b.WriteString(r.fleetMarkdown())
	b.WriteString("\n| phase | events | seconds | events/s | p50 ms | p99 ms | Maestro reads | Maestro writes | CPU s: adapter / Maestro / PostgreSQL / PgBouncer / RabbitMQ / harness / agents | busy cores (not ours) |\n|---|---|---|---|---|---|---|---|---|---|\n")
	for _, p := range r.Phases {
		fmt.Fprintf(&b, "| %s | %d | %s | %s | %s | %s | %s | %s | %s / %s / %s / %s / %s / %s / %s | %s (%s) |\n", p.Name, p.Events, runresults.Num(p.Seconds),
			runresults.Num(p.EventsPerS), runresults.Num(p.P50MS), runresults.Num(p.P99MS), runresults.Num(p.MaestroReads), runresults.Num(p.MaestroWrites),
			runresults.Num(p.AdapterCPU), runresults.Num(p.MaestroCPU), runresults.Num(p.PostgresCPU), runresults.Num(p.PgBouncerCPU), runresults.Num(p.RabbitMQCPU), runresults.Num(p.HarnessCPU), runresults.Num(p.AgentsCPU),
			runresults.Num(p.BusyCores), runresults.Num(p.OtherCores))
	}
	b.WriteString("\nOther work on the machine (cores, by process):")
	for _, p := range r.Phases {
		others := p.Others
		if others == "" {
			others = "none"
		}
		fmt.Fprintf(&b, " %s: %s;", p.Name, others)
	}
	b.WriteString("\n")
	for _, p := range r.Phases {
		if (strings.HasPrefix(p.Name, "latency") || p.Name == phaseSteady || p.Name == phaseRestart) && len(p.Timeline) > 0 {
			fmt.Fprintf(&b, "\nWorst seconds of %s (by p99; second of publication: events, p50 / p99 / max ms):", p.Name)
			for _, s := range worstSeconds(p.Timeline, 5) {
				fmt.Fprintf(&b, " %d s: %d, %s / %s / %s;", s.At, s.Events, runresults.Num(s.P50MS), runresults.Num(s.P99MS), runresults.Num(s.MaxMS))
			}
			fmt.Fprintf(&b, " collections: adapter %s (pauses %s ms), harness %d.\n", runresults.Num(p.AdapterGCs), runresults.Num(p.AdapterGCPauseMS), p.HarnessGCs)
		}
	}
	b.WriteString("\n")
	return b.String()
}

func ratio(a, b float64) string {
	if b == 0 {
		return "n/a"
	}
	return runresults.Num(a / b)
}
