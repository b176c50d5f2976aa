package check

import (
	"fmt"
	"math"
	"sort"
	"time"
)

// window classifies an instant: "steady", "during <fault>", "after <fault>"
// or "" (warm-up, or past the publisher's end).
func window(h *History, at time.Time) string {
	for _, f := range h.Faults {
		if !at.Before(f.At) && !at.After(f.End) {
			return "during " + f.Name
		}
	}
	for _, f := range h.Faults {
		if at.After(f.End) && at.Before(f.End.Add(Settle)) {
			return "after " + f.Name
		}
	}
	if at.Before(h.Meta.Start.Add(Settle)) || (!h.Meta.PublishEnd.IsZero() && at.After(h.Meta.PublishEnd)) {
		return ""
	}
	return "steady"
}

// latency: publish to the first 2xx status of the event's generation (or a
// newer one) at or after the publish, by window.
func latency(r *Report, h *History, puts map[string][]APIRequest) {
	byWindow := map[string][]float64{}
	events := map[string]int{}
	for _, p := range h.Published {
		w := window(h, p.At)
		if w == "" {
			continue
		}
		events[w]++
		ps := puts[p.Cluster]
		i := sort.Search(len(ps), func(i int) bool { return !ps[i].At.Before(p.At) })
		for ; i < len(ps); i++ {
			if ps[i].Generation >= p.Generation {
				byWindow[w] = append(byWindow[w], ms(ps[i].At.Sub(p.At)))
				break
			}
		}
	}
	var names []string
	for w := range events {
		names = append(names, w)
	}
	sort.Strings(names)
	for _, w := range names {
		r.Latency = append(r.Latency, Window{Name: w, Events: events[w], Reported: len(byWindow[w]),
			P50MS: percentile(byWindow[w], 50), P99MS: percentile(byWindow[w], 99)})
	}
}

// convergenceAfterFaults: for each fault, the time from its end to each
// cluster's first 2xx status with Applied True (or Finalized True) after it,
// over the clusters first published before the fault began (a cluster
// created later has nothing to converge from).
func convergenceAfterFaults(r *Report, h *History, puts map[string][]APIRequest) {
	first := map[string]time.Time{}
	for _, p := range h.Published {
		if t, ok := first[p.Cluster]; !ok || p.At.Before(t) {
			first[p.Cluster] = p.At
		}
	}
	for _, f := range h.Faults {
		c := Converge{Fault: f.Name, At: stamp(f.At)}
		var secs []float64
		for cluster, ps := range puts {
			if t, ok := first[cluster]; !ok || !t.Before(f.At) {
				continue
			}
			c.Clusters++
			i := sort.Search(len(ps), func(i int) bool { return !ps[i].At.Before(f.End) })
			found := false
			for ; i < len(ps); i++ {
				if ps[i].Applied == "True" || ps[i].Finalized == "True" {
					secs = append(secs, ps[i].At.Sub(f.End).Seconds())
					found = true
					break
				}
			}
			if !found {
				c.Never++
			}
		}
		c.P50S, c.P99S = percentile(secs, 50), percentile(secs, 99)
		r.Convergence = append(r.Convergence, c)
	}
}

// storms: during each API outage, events, runs (cluster GETs) and status
// PUTs per cluster per minute.
func storms(r *Report, h *History) {
	for _, f := range h.Faults {
		if f.Name != "api-503" {
			continue
		}
		in := func(t time.Time) bool { return !t.Before(f.At) && !t.After(f.End) }
		clusters := map[string]bool{}
		var events, runs, putsN int
		for _, p := range h.Published {
			if in(p.At) {
				events++
				clusters[p.Cluster] = true
			}
		}
		for _, a := range h.API {
			if !in(a.At) {
				continue
			}
			clusters[a.Cluster] = true
			if a.Status {
				putsN++
			} else {
				runs++
			}
		}
		mins := f.End.Sub(f.At).Minutes()
		s := Storm{At: stamp(f.At), Seconds: f.End.Sub(f.At).Seconds(), Clusters: len(clusters)}
		if n := float64(len(clusters)); n > 0 && mins > 0 {
			s.EventsPerClusterPerMin = float64(events) / n / mins
			s.RunsPerClusterPerMin = float64(runs) / n / mins
			s.PutsPerClusterPerMin = float64(putsN) / n / mins
		}
		if events > 0 {
			s.RunsPerEventDuringOutage = float64(runs) / float64(events)
		}
		r.Storms = append(r.Storms, s)
	}
}

// resources: per replica process, figures at start and end and the slope
// over its steady samples; flat within Tolerances.
func resources(r *Report, h *History) {
	byProc := map[string][]Sample{}
	var order []string
	for _, s := range h.Samples {
		k := fmt.Sprintf("%s/%d", s.Replica, s.PID)
		if byProc[k] == nil {
			order = append(order, k)
		}
		byProc[k] = append(byProc[k], s)
	}
	var bad []string
	judged := 0
	for _, k := range order {
		ss := byProc[k]
		p := Process{Replica: ss[0].Replica, PID: ss[0].PID, RSSStartMB: ss[0].RSSBytes / 1e6, RSSEndMB: ss[len(ss)-1].RSSBytes / 1e6,
			GoroutinesStart: ss[0].Goroutines, GoroutinesEnd: ss[len(ss)-1].Goroutines, FDsStart: ss[0].FDs, FDsEnd: ss[len(ss)-1].FDs}
		var steady []Sample
		var covered time.Duration // between consecutive samples both steady
		for i, s := range ss {
			if s.At.After(ss[0].At.Add(Settle)) && window(h, s.At) == "steady" {
				if n := len(steady); n > 0 && steady[n-1] == ss[i-1] {
					covered += s.At.Sub(ss[i-1].At)
				}
				steady = append(steady, s)
			}
		}
		p.SteadySamples = len(steady)
		if len(steady) >= 2 {
			p.SteadyMinutes = covered.Minutes()
			p.RSSSlopeMBMin = slope(steady, func(s Sample) float64 { return s.RSSBytes / 1e6 })
			p.GoroutineSlope = slope(steady, func(s Sample) float64 { return s.Goroutines })
			p.FDSlopePerMin = slope(steady, func(s Sample) float64 { return s.FDs })
		}
		if p.SteadyMinutes*float64(time.Minute) >= float64(Tolerances.MinSteady) {
			p.Judged = true
			judged++
			t := Tolerances
			if p.RSSSlopeMBMin > t.RSSMBPerMin || p.GoroutineSlope > t.GoroutinesPerMin || p.FDSlopePerMin > t.FDsPerMin {
				bad = append(bad, fmt.Sprintf("%s: RSS %+.2f MB/min, goroutines %+.2f/min, fds %+.2f/min",
					k, p.RSSSlopeMBMin, p.GoroutineSlope, p.FDSlopePerMin))
			}
		}
		r.Processes = append(r.Processes, p)
	}
	limit := fmt.Sprintf("slopes <= %.0f MB/min RSS, %.0f goroutines/min, %.0f fds/min over >= %v steady",
		Tolerances.RSSMBPerMin, Tolerances.GoroutinesPerMin, Tolerances.FDsPerMin, Tolerances.MinSteady)
	detail := fmt.Sprintf("%d of %d processes judged; growing: %s", judged, len(order), few(bad))
	r.add("resources flat", float64(len(bad)), limit, len(bad) == 0, "%s", detail)
}

// slope is the least-squares slope of f over the samples, per minute.
func slope(ss []Sample, f func(Sample) float64) float64 {
	t0 := ss[0].At
	var n, sx, sy, sxx, sxy float64
	for _, s := range ss {
		x, y := s.At.Sub(t0).Minutes(), f(s)
		n++
		sx, sy, sxx, sxy = sx+x, sy+y, sxx+x*x, sxy+x*y
	}
	d := n*sxx - sx*sx
	if d == 0 || math.IsNaN(d) {
		return 0
	}
	return (n*sxy - sx*sy) / d
}
