package main

import (
	"fmt"
	"math"
	"strings"

	"github.com/bundle-adapter/bundle-adapter/bench/internal/runresults"
)

// Floors of issue 34 ("Fleet scale"), checked only on runs that ran the
// phase (--phases).
const (
	floorOneConsumerCreatesPerS = 75.0  // pooled runs, agents that keep up
	floorCeilingShare           = 0.8   // of Maestro's own limit, simulated agent (issue 47)
	floorSteadyRequestsPerEvent = 0.001 // over >= 2.5 view max ages
	floorRestartExtraRequests   = 100.0 // over bundles / page size, first minute
	floorRestartP99MS           = 250.0
	floorRestartReadyS          = 3.0 // consuming again after the kill (issue 47)
	floorReplicasRatio          = 1.6
)

// oneConsumerResult is the creates-to-one-consumer phase: every cluster of
// it names the same consumer, whose agent applies at ApplyRatePerS.
type oneConsumerResult struct {
	Clusters      int     `json:"clusters"`
	Consumer      string  `json:"consumer"`
	Agent         string  `json:"agent"`            // simulated (maestroclient/agentsim) or real
	ApplyRatePerS float64 `json:"apply_rate_per_s"` // the agent's stated rate; 0: as fast as it can
	Creates       float64 `json:"creates"`
	Seconds       float64 `json:"seconds"`
	CreatesPerS   float64 `json:"creates_per_s"`
	applied
	WriteBudget  runresults.Maybe `json:"write_budget"` // the adapter's budget metric for the consumer at the end; "n/a" when it has none
	BudgetMetric string           `json:"write_budget_metric"`
	P50MS        float64          `json:"latency_p50_ms"`
	P99MS        float64          `json:"latency_p99_ms"`
	Lost         int              `json:"lost_events"`
	// Ceiling is Maestro's own limit measured right after, with the same
	// consumer and agent (nil: --ceiling-clients 0).
	Ceiling *ceilingResult `json:"maestro_ceiling,omitempty"`
}

// applied is what the consumer's agent took of a phase's creates
// (waitApplied): Applied bundles reported applied from the start of the
// phase until it had them all (or 30 s passed with none new); AppliedPerS
// is Applied over the seconds from the start to the last of them.
type applied struct {
	Applied     float64 `json:"applied"`
	AppliedS    float64 `json:"applied_s"`
	AppliedPerS float64 `json:"applied_per_s"`
	AllApplied  bool    `json:"all_applied"`
}

// agentLabel names the consumer's agent: "simulated agent at 400/s", "real agent".
func (o *oneConsumerResult) agentLabel() string {
	if o.Agent != "simulated" {
		return o.Agent + " agent"
	}
	return "simulated agent at " + applyRate(o.ApplyRatePerS)
}

// keptUp says whether the agent applied at least as fast as the adapter
// created (within 5%), i.e. the agent was not what limited the creates.
func (o *oneConsumerResult) keptUp() bool { return o.AllApplied && o.AppliedPerS >= 0.95*o.CreatesPerS }

// steadyResult is the long paced phase of unchanged events, over several
// view max ages: what the view's refresh costs in steady state.
type steadyResult struct {
	ViewMaxAgeS      float64          `json:"view_max_age_s"`
	Seconds          float64          `json:"seconds"`
	ViewMaxAges      float64          `json:"view_max_ages"`
	RatePerS         float64          `json:"offered_per_s"`
	Events           int              `json:"events"`
	Requests         float64          `json:"maestro_requests"`
	RequestsPerEvent runresults.Maybe `json:"maestro_requests_per_unchanged_event"`
	P50MS            float64          `json:"latency_p50_ms"`
	P99MS            float64          `json:"latency_p99_ms"`
	Lost             int              `json:"lost_events"`
}

// restartResult is a paced phase across a SIGKILL and restart of the
// adapter (same config, same queue).
type restartResult struct {
	RatePerS  float64 `json:"offered_per_s"`
	KilledAtS float64 `json:"killed_at_s"` // seconds into the phase
	DownS     float64 `json:"down_s"`      // from the kill until the new adapter was ready
	// RequestsFirstMinute are the new adapter's Maestro requests in the 60 s
	// after the kill (FirstMinuteS when the phase ended sooner).
	RequestsFirstMinute float64 `json:"maestro_requests_first_minute"`
	FirstMinuteS        float64 `json:"first_minute_s"`
	Bundles             int     `json:"bundles"`
	PageSize            int     `json:"view_page_size"`
	RequestsLimit       float64 `json:"maestro_requests_limit"` // bundles / page size + 100
	// SteadyRequestsPerS is the rate before the kill; RecoveryS the seconds
	// from the kill until a 5-second window's rate was back within it (+0.2/s).
	SteadyRequestsPerS float64          `json:"steady_maestro_requests_per_s"`
	RecoveryS          runresults.Maybe `json:"recovery_s"`
	RequestsBySecond   []float64        `json:"maestro_requests_by_second"` // after the kill
	Events             int              `json:"events"`
	P50MS              float64          `json:"latency_p50_ms"`
	P99MS              float64          `json:"latency_p99_ms"`
	MaxMS              float64          `json:"latency_max_ms"`
	Lost               int              `json:"lost_events"`
}

// replicasResult is unchanged events/s, saturating, with one adapter and
// then two on the same queue (competing consumers).
type replicasResult struct {
	OneEventsPerS float64   `json:"one_events_per_s"`
	TwoEventsPerS float64   `json:"two_events_per_s"`
	Ratio         float64   `json:"ratio"`
	Cores         int       `json:"cores"`
	BusyCoresOne  float64   `json:"busy_cores_one"`
	BusyCoresTwo  float64   `json:"busy_cores_two"`
	Replicas      []replica `json:"replicas"` // during the two-replica phase
	// Cores by process during the two-replica phase.
	MaestroCores  float64 `json:"maestro_cores"`
	PostgresCores float64 `json:"postgres_cores"`
	RabbitMQCores float64 `json:"rabbitmq_cores"`
	HarnessCores  float64 `json:"harness_cores"`
}

// replica is one adapter process in the two-replica phase.
type replica struct {
	Requests  float64 `json:"maestro_requests"`
	CPUCores  float64 `json:"cpu_cores"`
	RSSMB     float64 `json:"rss_mb"`
	RSSPeakMB float64 `json:"rss_peak_mb"`
}

// fleetFloors are the floors of the issue-34 phases the run ran.
func (r *results) fleetFloors() []runresults.Floor {
	var fs []runresults.Floor
	if o := r.OneConsumer; o != nil {
		note := fmt.Sprintf("%s, applied %s/s", o.agentLabel(), runresults.Num(o.AppliedPerS))
		f := atLeast("creates to one consumer", o.CreatesPerS, floorOneConsumerCreatesPerS, "creates/s", note)
		switch {
		case r.Mode != floorCreatesMode:
			f.Verdict, f.Note = "N/A", "checked on the pooled Maestro only; "+note
		case !o.keptUp() && o.Agent == "simulated":
			f.Verdict, f.Note = "N/A", "the agent did not keep up ("+note+"): raise --one-consumer-apply-rate"
		case !o.keptUp():
			f.Verdict, f.Note = "N/A", "the agent did not keep up ("+note+")"
		}
		fs = append(fs, f)
		if c := o.Ceiling; c != nil {
			g := atLeast("creates to one consumer, share of Maestro's own limit", c.AdapterShare, floorCeilingShare, "",
				fmt.Sprintf("applied at the agent: %s / %s per s (%d source clients straight to Maestro: accepted %s/s, delivered %s/s)",
					runresults.Num(o.AppliedPerS), runresults.Num(c.AppliedPerS), c.Clients, runresults.Num(c.CreatesPerS), runresults.Num(c.AppliedPerS)))
			switch {
			case o.Agent != "simulated":
				g.Verdict = "N/A" // the floor is the simulated agent's; a real one is reported
			case c.Failed > 0:
				g.Verdict, g.Note = "N/A", fmt.Sprintf("%d creates of the ceiling failed: %s", c.Failed, c.FirstErrorMsg)
			case !c.AllApplied || !o.AllApplied:
				g.Verdict, g.Note = "N/A", "the agent did not apply every bundle of both phases"
			}
			fs = append(fs, g)
		}
	}
	if s := r.Steady; s != nil {
		f := atMost("Maestro requests per unchanged event (steady)", s.RequestsPerEvent.V, floorSteadyRequestsPerEvent, "",
			fmt.Sprintf("%s view max ages of %s s, %d events", runresults.Num(s.ViewMaxAges), runresults.Num(s.ViewMaxAgeS), s.Events))
		switch {
		case !s.RequestsPerEvent.OK:
			f.Verdict, f.Note = "N/A", "the adapter exposes no "+r.MaestroRequestsMetric
		case s.ViewMaxAgeS == 0:
			f.Verdict, f.Note = "N/A", "the view is off (--view-max-age 0)"
		}
		fs = append(fs, f)
	}
	if x := r.Restart; x != nil {
		fs = append(fs,
			atMost("Maestro requests in the minute after a restart", x.RequestsFirstMinute, x.RequestsLimit, "",
				fmt.Sprintf("%d bundles / page size %d + %.0f; over %s s", x.Bundles, x.PageSize, floorRestartExtraRequests, runresults.Num(x.FirstMinuteS))),
			atMost("paced latency p99 across a restart", x.P99MS, floorRestartP99MS, "ms",
				fmt.Sprintf("paced at %s events/s, adapter down %s s", runresults.Num(x.RatePerS), runresults.Num(x.DownS))),
			atMost("consuming again after a restart", x.DownS, floorRestartReadyS, "s",
				fmt.Sprintf("from the SIGKILL to the new process's /readyz, which waits for its first List of %d bundles", x.Bundles)))
	}
	if x := r.Replicas; x != nil {
		fs = append(fs, atLeast("two replicas' unchanged events (x one)", x.Ratio, floorReplicasRatio, "x", x.limits()))
	}
	return fs
}

// restartLimit is the floor of the requests in the minute after a restart:
// one paged list of the bundles, plus 100.
func restartLimit(bundles, pageSize int) float64 {
	return math.Ceil(float64(bundles)/float64(max(1, pageSize))) + floorRestartExtraRequests
}

func applyRate(r float64) string {
	if r <= 0 {
		return "no rate limit"
	}
	return runresults.Num(r) + "/s"
}

// limits says where the two-replica phase's CPU went: on a small machine
// the harness, RabbitMQ, Maestro and two adapters may fill every core.
func (x *replicasResult) limits() string {
	var per []string
	for i, rp := range x.Replicas {
		per = append(per, fmt.Sprintf("adapter %d %s", i+1, runresults.Num(rp.CPUCores)))
	}
	note := fmt.Sprintf("%s / %s events/s; busy cores %s of %d (one replica: %s); cores: %s, Maestro %s, PostgreSQL %s, RabbitMQ %s, harness %s",
		runresults.Num(x.TwoEventsPerS), runresults.Num(x.OneEventsPerS), runresults.Num(x.BusyCoresTwo), x.Cores, runresults.Num(x.BusyCoresOne), strings.Join(per, ", "),
		runresults.Num(x.MaestroCores), runresults.Num(x.PostgresCores), runresults.Num(x.RabbitMQCores), runresults.Num(x.HarnessCores))
	if x.Cores > 0 && x.BusyCoresTwo >= 0.9*float64(x.Cores) {
		note = "the machine was saturated: " + note
	}
	return note
}

// fleetMarkdown is the table of the issue-34 phases the run ran ("" when none).
func (r *results) fleetMarkdown() string {
	var rows [][2]string
	if o := r.OneConsumer; o != nil {
		rows = append(rows,
			[2]string{fmt.Sprintf("creates to one consumer (%d clusters on %s, %s)", o.Clusters, o.Consumer, o.agentLabel()),
				fmt.Sprintf("%s creates/s (%s in %s s)", runresults.Num(o.CreatesPerS), runresults.Num(o.Creates), runresults.Num(o.Seconds))},
			[2]string{"... the agent applied: bundles / s from the phase start / per s / all", fmt.Sprintf("%s / %s / %s / %t", runresults.Num(o.Applied), runresults.Num(o.AppliedS), runresults.Num(o.AppliedPerS), o.AllApplied)},
			[2]string{"... write budget at the end (" + o.BudgetMetric + ")", o.WriteBudget.String()},
			[2]string{"... create latency p50 / p99 ms, lost", fmt.Sprintf("%s / %s, %d", runresults.Num(o.P50MS), runresults.Num(o.P99MS), o.Lost)})
		if c := o.Ceiling; c != nil {
			rows = append(rows,
				[2]string{fmt.Sprintf("Maestro's own limit to the same consumer (%d source clients, %d callers, no adapter): delivered to the agent", c.Clients, c.Callers),
					fmt.Sprintf("%s bundles/s (accepted %s/s: %s in %s s, %d failed); the adapter's: %s of it", runresults.Num(c.AppliedPerS), runresults.Num(c.CreatesPerS),
						runresults.Num(c.Creates), runresults.Num(c.Seconds), c.Failed, runresults.Num(c.AdapterShare))},
				[2]string{"... the agent applied: bundles / s from the start / per s / all", fmt.Sprintf("%s / %s / %s / %t", runresults.Num(c.Applied), runresults.Num(c.AppliedS), runresults.Num(c.AppliedPerS), c.AllApplied)})
		}
	}
	if s := r.Steady; s != nil {
		rows = append(rows,
			[2]string{fmt.Sprintf("steady: Maestro requests per unchanged event (%s s = %s view max ages of %s s, paced at %s/s)", runresults.Num(s.Seconds), runresults.Num(s.ViewMaxAges), runresults.Num(s.ViewMaxAgeS), runresults.Num(s.RatePerS)),
				fmt.Sprintf("%s (%s requests, %d events)", s.RequestsPerEvent.String(), runresults.Num(s.Requests), s.Events)},
			[2]string{"... p50 / p99 ms, lost", fmt.Sprintf("%s / %s, %d", runresults.Num(s.P50MS), runresults.Num(s.P99MS), s.Lost)})
	}
	if x := r.Restart; x != nil {
		rows = append(rows,
			[2]string{fmt.Sprintf("restart: Maestro requests in the minute after the kill (limit: %d bundles / %d + 100)", x.Bundles, x.PageSize),
				fmt.Sprintf("%s (limit %s; over %s s)", runresults.Num(x.RequestsFirstMinute), runresults.Num(x.RequestsLimit), runresults.Num(x.FirstMinuteS))},
			[2]string{"... killed at / down for / requests back at the steady level after (s)", fmt.Sprintf("%s / %s / %s", runresults.Num(x.KilledAtS), runresults.Num(x.DownS), x.RecoveryS.String())},
			[2]string{"... steady requests/s before the kill", runresults.Num(x.SteadyRequestsPerS)},
			[2]string{fmt.Sprintf("... paced at %s/s across the restart: p50 / p99 / max ms, lost", runresults.Num(x.RatePerS)), fmt.Sprintf("%s / %s / %s, %d", runresults.Num(x.P50MS), runresults.Num(x.P99MS), runresults.Num(x.MaxMS), x.Lost)})
	}
	if x := r.Replicas; x != nil {
		rows = append(rows, [2]string{"replicas: unchanged events/s one / two (ratio)", fmt.Sprintf("%s / %s (%sx)", runresults.Num(x.OneEventsPerS), runresults.Num(x.TwoEventsPerS), runresults.Num(x.Ratio))})
		for i, rp := range x.Replicas {
			rows = append(rows, [2]string{fmt.Sprintf("... replica %d: Maestro requests / CPU cores / RSS MB (end, peak)", i+1),
				fmt.Sprintf("%s / %s / %s, %s", runresults.Num(rp.Requests), runresults.Num(rp.CPUCores), runresults.Num(rp.RSSMB), runresults.Num(rp.RSSPeakMB))})
		}
		rows = append(rows, [2]string{"... busy cores one / two replicas (of the machine's)", fmt.Sprintf("%s / %s (of %d)", runresults.Num(x.BusyCoresOne), runresults.Num(x.BusyCoresTwo), x.Cores)})
	}
	if len(rows) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n| fleet phase (issue 34) | value |\n|---|---|\n")
	for _, row := range rows {
		fmt.Fprintf(&b, "| %s | %s |\n", row[0], row[1])
	}
	return b.String()
}
