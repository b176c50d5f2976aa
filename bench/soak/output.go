package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/bundle-adapter/bundle-adapter/bench/soak/check"
)

// writeResults writes results.json, results.md and results.svg into dir
// and prints the verdicts and the Markdown table to w.
func writeResults(dir string, h *check.History, r *check.Report, w io.Writer) error {
	res := map[string]any{"meta": h.Meta, "faults": h.Faults, "report": r, "pass": r.Pass()}
	b, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "results.json"), b, 0o644); err != nil {
		return err
	}
	md := markdown(h, r)
	if err := os.WriteFile(filepath.Join(dir, "results.md"), []byte(md), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "results.svg"), []byte(plot(h)), 0o644); err != nil {
		return err
	}
	fmt.Fprint(w, md)
	for _, v := range r.Verdicts {
		word := "PASS"
		if !v.Pass {
			word = "FAIL"
		}
		fmt.Fprintf(w, "%s %s: %v (limit %s) %s\n", word, v.Name, v.Value, v.Limit, v.Detail)
	}
	fmt.Fprintf(w, "results: %s\n", dir)
	return nil
}

func markdown(h *check.History, r *check.Report) string {
	var b strings.Builder
	m := h.Meta
	fmt.Fprintf(&b, "## Soak %s: %d clusters, %.0f events/s, %v publishing, seed %d%s\n\n", m.Start.UTC().Format("2006-01-02 15:04"),
		m.Clusters, m.RatePerS, m.PublishEnd.Sub(m.Start).Round(time.Second), m.Seed, brokenLabel(m.Broken))
	fmt.Fprintf(&b, "%d events published over %d cluster ids; %d dead-lettered; Maestro requests per event %.3f\n\n",
		r.Published, r.Clusters, r.DeadLettered, r.MaestroReqPerEvent)
	if len(m.KubeClusters) > 0 {
		n := map[string]int{}
		for _, o := range h.Kube {
			n[o.Event]++
		}
		restarts, lost := 0, 0
		for _, f := range h.Faults {
			if f.Name == "agent-remedy" {
				restarts++
				if l, ok := f.Params["bundles"].([]any); ok {
					lost += len(l)
				}
			}
		}
		fmt.Fprintf(&b, "%d of the clusters on real `maestro agent`s: the kube-apiserver saw %d objects added and %d deleted, and held %d at the end; "+
			"deletions the agents lost (bundle deleting, objects gone, no confirmation for %v): %d, healed by %d agent restarts (the operator's remedy)\n\n",
			len(m.KubeClusters), n["added"], n["deleted"], n["final"], remedyAfter, lost, restarts)
	}
	b.WriteString("| invariant | verdict | value | limit | detail |\n|---|---|---|---|---|\n")
	for _, v := range r.Verdicts {
		word := "pass"
		if !v.Pass {
			word = "**FAIL**"
		}
		fmt.Fprintf(&b, "| %s | %s | %v | %s | %s |\n", v.Name, word, v.Value, v.Limit, strings.ReplaceAll(v.Detail, "|", "/"))
	}
	b.WriteString("\n| window | events | reported | p50 ms | p99 ms |\n|---|---|---|---|---|\n")
	for _, l := range r.Latency {
		fmt.Fprintf(&b, "| %s | %d | %d | %.1f | %.1f |\n", l.Name, l.Events, l.Reported, l.P50MS, l.P99MS)
	}
	b.WriteString("\n| fault at | fault | clusters | never Applied after | p50 s to Applied | p99 s |\n|---|---|---|---|---|---|\n")
	for _, c := range r.Convergence {
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %.1f | %.1f |\n", c.At, c.Fault, c.Clusters, c.Never, c.P50S, c.P99S)
	}
	b.WriteString("\n| API outage at | s | clusters | events/cluster/min | runs/cluster/min | PUTs/cluster/min | runs per event |\n|---|---|---|---|---|---|---|\n")
	for _, s := range r.Storms {
		fmt.Fprintf(&b, "| %s | %.0f | %d | %.1f | %.1f | %.1f | %.2f |\n", s.At, s.Seconds, s.Clusters,
			s.EventsPerClusterPerMin, s.RunsPerClusterPerMin, s.PutsPerClusterPerMin, s.RunsPerEventDuringOutage)
	}
	b.WriteString("\n| replica/pid | RSS MB start / end | goroutines start / end | fds start / end | steady min | RSS MB/min | goroutines/min | fds/min | judged |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, p := range r.Processes {
		fmt.Fprintf(&b, "| %s/%d | %.1f / %.1f | %.0f / %.0f | %.0f / %.0f | %.1f | %+.2f | %+.2f | %+.2f | %v |\n", p.Replica, p.PID,
			p.RSSStartMB, p.RSSEndMB, p.GoroutinesStart, p.GoroutinesEnd, p.FDsStart, p.FDsEnd, p.SteadyMinutes,
			p.RSSSlopeMBMin, p.GoroutineSlope, p.FDSlopePerMin, p.Judged)
	}
	b.WriteString("\n")
	return b.String()
}

func brokenLabel(s string) string {
	if s == "" {
		return ""
	}
	return ", deliberately broken adapter: " + s
}

// plot draws RSS per replica process and the p99 latency per 10 s of
// publication over time, faults marked as vertical lines.
func plot(h *check.History) string {
	const W, H, L, R, T, B = 960.0, 420.0, 60.0, 60.0, 30.0, 40.0
	t0, t1 := h.Meta.Start, h.Meta.End
	span := t1.Sub(t0).Seconds()
	if span <= 0 {
		span = 1
	}
	x := func(t time.Time) float64 { return L + (W-L-R)*t.Sub(t0).Seconds()/span }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" font-family="sans-serif" font-size="11">`+"\n", W, H)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/><text x="%.0f" y="18">RSS MB per replica (solid, left axis), p99 reconcile latency ms per 10 s (dots, right axis); faults in red</text>`+"\n", L)
	// RSS.
	maxRSS := 1.0
	for _, s := range h.Samples {
		maxRSS = max(maxRSS, s.RSSBytes/1e6)
	}
	y := func(v, top float64) float64 { return H - B - (H-B-T)*v/top }
	byProc := map[string][]check.Sample{}
	var keys []string
	for _, s := range h.Samples {
		k := fmt.Sprintf("%s/%d", s.Replica, s.PID)
		if byProc[k] == nil {
			keys = append(keys, k)
		}
		byProc[k] = append(byProc[k], s)
	}
	colors := []string{"#1f77b4", "#2ca02c", "#9467bd", "#8c564b", "#17becf"}
	for i, k := range keys {
		var pts []string
		for _, s := range byProc[k] {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(s.At), y(s.RSSBytes/1e6, maxRSS*1.1)))
		}
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="1.5" points="%s"><title>%s</title></polyline>`+"\n",
			colors[i%len(colors)], strings.Join(pts, " "), k)
	}
	// p99 latency per 10 s bucket of publication.
	lat := latencies(h)
	maxLat := 1.0
	for _, v := range lat {
		maxLat = max(maxLat, v)
	}
	var buckets []int
	for k := range lat {
		buckets = append(buckets, k)
	}
	sort.Ints(buckets)
	for _, k := range buckets {
		t := t0.Add(time.Duration(k) * 10 * time.Second)
		fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="2" fill="#ff7f0e"><title>%.0f ms</title></circle>`+"\n", x(t), y(lat[k], maxLat*1.1), lat[k])
	}
	for _, f := range h.Faults {
		fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%.0f" y2="%.0f" stroke="red" stroke-dasharray="3,3"/><text x="%.1f" y="%.0f" fill="red" transform="rotate(-90 %.1f %.0f)">%s</text>`+"\n",
			x(f.At), x(f.At), T, H-B, x(f.At)+3, T+90, x(f.At)+3, T+90, f.Name)
	}
	fmt.Fprintf(&b, `<line x1="%.0f" x2="%.0f" y1="%.0f" y2="%.0f" stroke="black"/>`, L, W-R, H-B, H-B)
	fmt.Fprintf(&b, `<text x="%.0f" y="%.0f">0</text><text x="%.0f" y="%.0f" text-anchor="end">%.0fs</text>`, L, H-B+15, W-R, H-B+15, span)
	fmt.Fprintf(&b, `<text x="5" y="%.0f">%.0f MB</text><text x="%.0f" y="%.0f">%.0f ms</text>`, T+10, maxRSS*1.1, W-R+5, T+10, maxLat*1.1)
	b.WriteString("</svg>\n")
	return b.String()
}

// latencies is the p99 latency (ms) of the events published in each 10 s
// bucket from the start, matched as the checker matches them.
func latencies(h *check.History) map[int]float64 {
	puts := map[string][]check.APIRequest{}
	for _, a := range h.API {
		if a.Status && a.Code/100 == 2 {
			puts[a.Cluster] = append(puts[a.Cluster], a)
		}
	}
	for _, ps := range puts {
		sort.SliceStable(ps, func(i, j int) bool { return ps[i].At.Before(ps[j].At) })
	}
	byBucket := map[int][]float64{}
	for _, p := range h.Published {
		ps := puts[p.Cluster]
		i := sort.Search(len(ps), func(i int) bool { return !ps[i].At.Before(p.At) })
		for ; i < len(ps); i++ {
			if ps[i].Generation >= p.Generation {
				k := int(p.At.Sub(h.Meta.Start) / (10 * time.Second))
				byBucket[k] = append(byBucket[k], float64(ps[i].At.Sub(p.At))/1e6)
				break
			}
		}
	}
	out := map[int]float64{}
	for k, v := range byBucket {
		sort.Float64s(v)
		out[k] = v[min(len(v)-1, int(0.99*float64(len(v))))]
	}
	return out
}
