package main

import (
	"fmt"
	"strings"

	"github.com/bundle-adapter/bundle-adapter/bench/internal/runresults"
)

// fleetRun is what the report reads of issue 34's phases in a run
// (bench/load fleet_results.go); a nil part was not run.
type fleetRun struct {
	OneConsumer *struct {
		ApplyRatePerS float64 `json:"apply_rate_per_s"`
		CreatesPerS   float64 `json:"creates_per_s"`
		AppliedPerS   float64 `json:"applied_per_s"`
	} `json:"one_consumer"`
	Steady *struct {
		RequestsPerEvent runresults.Maybe `json:"maestro_requests_per_unchanged_event"`
		ViewMaxAges      float64          `json:"view_max_ages"`
	} `json:"steady"`
	Restart *struct {
		RequestsFirstMinute float64          `json:"maestro_requests_first_minute"`
		RequestsLimit       float64          `json:"maestro_requests_limit"`
		P99MS               float64          `json:"latency_p99_ms"`
		MaxMS               float64          `json:"latency_max_ms"`
		DownS               float64          `json:"down_s"`
		RecoveryS           runresults.Maybe `json:"recovery_s"`
	} `json:"restart"`
	Replicas *struct {
		OneEventsPerS float64 `json:"one_events_per_s"`
		TwoEventsPerS float64 `json:"two_events_per_s"`
		Ratio         float64 `json:"ratio"`
		BusyCoresTwo  float64 `json:"busy_cores_two"`
		Cores         int     `json:"cores"`
	} `json:"replicas"`
}

func (f *fleetRun) any() bool {
	return f.OneConsumer != nil || f.Steady != nil || f.Restart != nil || f.Replicas != nil
}

// fleetSummary is the table of issue 34's phases, a row per run that ran
// any ("—" for a phase it did not run); "" when no run did.
func (rep *report) fleetSummary() string {
	var b strings.Builder
	for _, r := range rep.runs {
		if !r.fleetRun.any() {
			continue
		}
		if b.Len() == 0 {
			b.WriteString("| Maestro | clusters | creates to one consumer /s (agent's apply rate; applied /s) | Maestro requests per unchanged event, steady (view max ages) | restart: Maestro requests in the first minute (limit) | restart: paced p99 / max ms, down s, back to steady after s | unchanged events/s one / two replicas (ratio), busy cores |\n")
			b.WriteString("|---|---|---|---|---|---|---|\n")
		}
		f := r.fleetRun
		cells := []string{"—", "—", "—", "—", "—"}
		if o := f.OneConsumer; o != nil {
			rate := "no limit"
			if o.ApplyRatePerS > 0 {
				rate = runresults.Num(o.ApplyRatePerS) + "/s"
			}
			cells[0] = fmt.Sprintf("%s (%s; %s)", runresults.Num(o.CreatesPerS), rate, runresults.Num(o.AppliedPerS))
		}
		if s := f.Steady; s != nil {
			cells[1] = fmt.Sprintf("%s (%s)", s.RequestsPerEvent.String(), runresults.Num(s.ViewMaxAges))
		}
		if x := f.Restart; x != nil {
			cells[2] = fmt.Sprintf("%s (%s)", runresults.Num(x.RequestsFirstMinute), runresults.Num(x.RequestsLimit))
			cells[3] = fmt.Sprintf("%s / %s, %s, %s", runresults.Num(x.P99MS), runresults.Num(x.MaxMS), runresults.Num(x.DownS), x.RecoveryS.String())
		}
		if x := f.Replicas; x != nil {
			cells[4] = fmt.Sprintf("%s / %s (%sx), %s of %d", runresults.Num(x.OneEventsPerS), runresults.Num(x.TwoEventsPerS), runresults.Num(x.Ratio), runresults.Num(x.BusyCoresTwo), x.Cores)
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", r.Mode, thousands(r.Clusters), strings.Join(cells, " | "))
	}
	if b.Len() == 0 {
		return ""
	}
	return "Fleet phases (issue 34):\n\n" + b.String() + "\n"
}
