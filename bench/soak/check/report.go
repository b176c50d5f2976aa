package check

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// Verdict is one invariant's outcome.
type Verdict struct {
	Name   string  `json:"name"`
	Pass   bool    `json:"pass"`
	Value  float64 `json:"value"`
	Limit  string  `json:"limit"`
	Detail string  `json:"detail,omitempty"`
}

// Window is the reconcile latency of the events published in one window.
type Window struct {
	Name     string  `json:"name"`
	Events   int     `json:"events"`
	Reported int     `json:"reported"`
	P50MS    float64 `json:"p50_ms"`
	P99MS    float64 `json:"p99_ms"`
}

// Converge is how long clusters took to report Applied True after a fault.
type Converge struct {
	Fault    string  `json:"fault"`
	At       string  `json:"at"`
	Clusters int     `json:"clusters"`
	Never    int     `json:"never"`
	P50S     float64 `json:"p50_s"`
	P99S     float64 `json:"p99_s"`
}

// Storm is the retry-storm figure of one API outage.
type Storm struct {
	At                       string  `json:"at"`
	Seconds                  float64 `json:"seconds"`
	Clusters                 int     `json:"clusters"`
	EventsPerClusterPerMin   float64 `json:"events_per_cluster_per_min"`
	RunsPerClusterPerMin     float64 `json:"runs_per_cluster_per_min"`
	PutsPerClusterPerMin     float64 `json:"puts_per_cluster_per_min"`
	RunsPerEventDuringOutage float64 `json:"runs_per_event"`
}

// Process is one replica process's resource figures.
type Process struct {
	Replica         string  `json:"replica"`
	PID             int     `json:"pid"`
	RSSStartMB      float64 `json:"rss_start_mb"`
	RSSEndMB        float64 `json:"rss_end_mb"`
	GoroutinesStart float64 `json:"goroutines_start"`
	GoroutinesEnd   float64 `json:"goroutines_end"`
	FDsStart        float64 `json:"fds_start"`
	FDsEnd          float64 `json:"fds_end"`
	SteadySamples   int     `json:"steady_samples"`
	SteadyMinutes   float64 `json:"steady_minutes"`
	RSSSlopeMBMin   float64 `json:"rss_slope_mb_per_min"`
	GoroutineSlope  float64 `json:"goroutines_slope_per_min"`
	FDSlopePerMin   float64 `json:"fds_slope_per_min"`
	Judged          bool    `json:"judged"`
}

// Report is the checker's answer.
type Report struct {
	Verdicts           []Verdict  `json:"verdicts"`
	Published          int        `json:"published"`
	Clusters           int        `json:"clusters"`
	DeadLettered       int        `json:"dead_lettered"`
	MaestroReqPerEvent float64    `json:"maestro_requests_per_event"`
	Latency            []Window   `json:"latency"`
	Convergence        []Converge `json:"convergence"`
	Storms             []Storm    `json:"storms"`
	Processes          []Process  `json:"processes"`
}

// Pass reports whether every invariant held.
func (r *Report) Pass() bool {
	for _, v := range r.Verdicts {
		if !v.Pass {
			return false
		}
	}
	return true
}

// Failed names the invariants that did not hold.
func (r *Report) Failed() []string {
	var out []string
	for _, v := range r.Verdicts {
		if !v.Pass {
			out = append(out, v.Name)
		}
	}
	return out
}

func (r *Report) add(name string, value float64, limit string, pass bool, detail string, args ...any) {
	r.Verdicts = append(r.Verdicts, Verdict{Name: name, Pass: pass, Value: value, Limit: limit, Detail: fmt.Sprintf(detail, args...)})
}

// percentile of sorted-on-demand values (nearest rank); 0 when empty.
func percentile(v []float64, p float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	i := int(math.Ceil(p/100*float64(len(s)))) - 1
	return s[min(max(i, 0), len(s)-1)]
}

func stamp(t time.Time) string { return t.UTC().Format("15:04:05") }

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
