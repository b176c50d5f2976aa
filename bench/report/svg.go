package main

import (
	"fmt"
	"html"
	"math"
	"sort"
	"strings"

	"github.com/bundle-adapter/bundle-adapter/bench/internal/runresults"
)

// The drawing: a 2x2 grid of panels, each a measure against clusters (log
// scale), one colour per Maestro setup; floors dotted.
const (
	svgW, svgH     = 960, 700
	panelW, panelH = 440, 270
	marginL        = 60 // room for the y tick labels inside a panel
	marginB        = 40 // room for the x tick labels
	marginT        = 28 // room for the title
)

// palette gives each setup its colour; others are grey.
var palette = map[string]string{"stock": "#1f77b4", "pooled": "#d62728"}

type point struct{ x, y float64 }

// series is one line of a panel.
type series struct {
	mode   string
	dashed bool
	pts    []point
}

// panel is one measure against clusters.
type panel struct {
	title      string
	floor      float64
	floorLabel string
	lines      []series
}

func drawSVG(runs []*runResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n",
		svgW, svgH, svgW, svgH)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", svgW, svgH)
	fmt.Fprintf(&b, `<text x="%d" y="24" font-size="16" text-anchor="middle">bundle-adapter bench: cost as work grows (clusters, 2 bundles each)</text>`+"\n", svgW/2)
	xs := clusterTicks(runs)
	for i, p := range panels(runs) {
		ox, oy := 30+(i%2)*(panelW+30), 40+(i/2)*(panelH+40)
		drawPanel(&b, p, xs, float64(ox), float64(oy))
	}
	drawLegend(&b, modes(runs), float64(svgH-30))
	b.WriteString("</svg>\n")
	return b.String()
}

// panels are the four measures of the issue: throughput (unchanged events,
// creates), paced latency p50 (solid) and p99 (dashed), adapter RSS.
func panels(runs []*runResult) []panel {
	line := func(mode string, dashed bool, y func(*runResult) float64) series {
		s := series{mode: mode, dashed: dashed}
		for _, r := range runs {
			if r.Mode == mode {
				s.pts = append(s.pts, point{float64(r.Clusters), y(r)})
			}
		}
		return s
	}
	per := func(dashed bool, y func(*runResult) float64) []series {
		var out []series
		for _, m := range modes(runs) {
			out = append(out, line(m, dashed, y))
		}
		return out
	}
	return []panel{
		{title: "unchanged events/s", floor: 1000, floorLabel: "floor 1,000/s",
			lines: per(false, func(r *runResult) float64 { return r.UnchangedEventsPerS })},
		{title: "bundle creates/s", floor: 100, floorLabel: "floor 100/s (pooled)",
			lines: per(false, func(r *runResult) float64 { return r.CreatesPerS })},
		{title: "paced latency ms (p50 solid, p99 dashed and hollow)", floor: 50, floorLabel: "p99 floor 50 ms",
			lines: append(per(false, func(r *runResult) float64 { return r.LatencyP50MS }),
				per(true, func(r *runResult) float64 { return r.LatencyP99MS })...)},
		{title: "adapter RSS MB (peak)", floor: 200, floorLabel: "floor 200 MB (at 50,000 bundles)",
			lines: per(false, func(r *runResult) float64 { return r.AdapterRSSPeakMB })},
	}
}

// modes lists the runs' setups in report order.
func modes(runs []*runResult) []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range runs {
		if !seen[r.Mode] {
			seen[r.Mode] = true
			out = append(out, r.Mode)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return modeRank(out[i]) < modeRank(out[j]) })
	return out
}

// clusterTicks are the sizes measured, ascending.
func clusterTicks(runs []*runResult) []float64 {
	var xs []float64
	seen := map[int]bool{}
	for _, r := range runs {
		if !seen[r.Clusters] {
			seen[r.Clusters] = true
			xs = append(xs, float64(r.Clusters))
		}
	}
	sort.Float64s(xs)
	return xs
}

// axes maps data to the plot area of a panel at (ox, oy).
type axes struct {
	ox, oy, w, h   float64
	lx0, lx1, y1   float64 // log10 of the x range; top of the y range
	xTicks, yTicks []float64
	yStep          float64
}

func newAxes(p panel, xs []float64, ox, oy float64) axes {
	a := axes{ox: ox + marginL, oy: oy + marginT, w: panelW - marginL - 10, h: panelH - marginT - marginB, xTicks: xs}
	lo, hi := xs[0], xs[len(xs)-1]
	a.lx0, a.lx1 = math.Log10(lo)-0.15, math.Log10(hi)+0.15
	top := p.floor
	for _, s := range p.lines {
		for _, pt := range s.pts {
			top = max(top, pt.y)
		}
	}
	a.yStep = niceStep(top * 1.1 / 5)
	a.y1 = max(a.yStep, math.Ceil(top*1.1/a.yStep)*a.yStep)
	for i := 0.0; i*a.yStep <= a.y1+a.yStep/2; i++ {
		a.yTicks = append(a.yTicks, i*a.yStep)
	}
	return a
}

func (a axes) px(x float64) float64 {
	return a.ox + (math.Log10(x)-a.lx0)/(a.lx1-a.lx0)*a.w
}

func (a axes) py(y float64) float64 { return a.oy + a.h - y/a.y1*a.h }

// niceStep rounds a raw tick step up to 1, 2 or 5 times a power of ten.
func niceStep(raw float64) float64 {
	if raw <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= raw {
			return m * p
		}
	}
	return 10 * p
}

func drawPanel(b *strings.Builder, p panel, xs []float64, ox, oy float64) {
	a := newAxes(p, xs, ox, oy)
	fmt.Fprintf(b, `<g class="panel"><text x="%s" y="%s" font-size="14" font-weight="bold">%s</text>`+"\n",
		f1(a.ox), f1(oy+16), html.EscapeString(p.title))
	for _, v := range a.yTicks {
		y := a.py(v)
		fmt.Fprintf(b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#e5e5e5"/>`, f1(a.ox), f1(y), f1(a.ox+a.w), f1(y))
		fmt.Fprintf(b, `<text x="%s" y="%s" text-anchor="end">%s</text>`+"\n", f1(a.ox-6), f1(y+4), tickLabel(v, a.yStep))
	}
	for _, x := range a.xTicks {
		X := a.px(x)
		fmt.Fprintf(b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#333"/>`, f1(X), f1(a.oy+a.h), f1(X), f1(a.oy+a.h+5))
		fmt.Fprintf(b, `<text x="%s" y="%s" text-anchor="middle">%s</text>`+"\n", f1(X), f1(a.oy+a.h+18), thousands(int(x)))
	}
	fmt.Fprintf(b, `<path d="M%s %sV%sH%s" fill="none" stroke="#333"/>`+"\n", f1(a.ox), f1(a.oy), f1(a.oy+a.h), f1(a.ox+a.w))
	fmt.Fprintf(b, `<text x="%s" y="%s" text-anchor="middle" fill="#555">clusters (log scale)</text>`+"\n",
		f1(a.ox+a.w/2), f1(a.oy+a.h+34))
	fy := a.py(p.floor)
	fmt.Fprintf(b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#777" stroke-dasharray="2 3"/>`, f1(a.ox), f1(fy), f1(a.ox+a.w), f1(fy))
	fmt.Fprintf(b, `<text x="%s" y="%s" text-anchor="end" fill="#777" font-size="11">%s</text>`+"\n",
		f1(a.ox+a.w-2), f1(fy-4), html.EscapeString(p.floorLabel))
	for _, s := range p.lines {
		drawSeries(b, a, s)
	}
	b.WriteString("</g>\n")
}

func drawSeries(b *strings.Builder, a axes, s series) {
	if len(s.pts) == 0 {
		return
	}
	colour := modeColour(s.mode)
	dash := ""
	if s.dashed {
		dash = ` stroke-dasharray="6 4"`
	}
	var pts []string
	for _, p := range s.pts {
		pts = append(pts, f1(a.px(p.x))+","+f1(a.py(p.y)))
	}
	fmt.Fprintf(b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2"%s/>`+"\n", strings.Join(pts, " "), colour, dash)
	fill := colour // a dashed series has hollow marks, told apart where a size has no line
	if s.dashed {
		fill = "white"
	}
	for _, p := range s.pts {
		fmt.Fprintf(b, `<circle cx="%s" cy="%s" r="3" fill="%s" stroke="%s"><title>%s, %s clusters: %s</title></circle>`+"\n",
			f1(a.px(p.x)), f1(a.py(p.y)), fill, colour, html.EscapeString(s.mode), thousands(int(p.x)), runresults.Num(p.y))
	}
}

func drawLegend(b *strings.Builder, ms []string, y float64) {
	x := 60.0
	for _, m := range ms {
		fmt.Fprintf(b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="2"/>`, f1(x), f1(y), f1(x+24), f1(y), modeColour(m))
		fmt.Fprintf(b, `<text x="%s" y="%s">%s Maestro</text>`+"\n", f1(x+30), f1(y+4), html.EscapeString(m))
		x += 160
	}
	fmt.Fprintf(b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#777" stroke-dasharray="2 3"/>`, f1(x), f1(y), f1(x+24), f1(y))
	fmt.Fprintf(b, `<text x="%s" y="%s">floor (bench/README.md)</text>`+"\n", f1(x+30), f1(y+4))
}

func modeColour(m string) string {
	if c, ok := palette[m]; ok {
		return c
	}
	return "#7f7f7f"
}

// tickLabel writes a y tick with the decimals its step needs.
func tickLabel(v, step float64) string {
	switch {
	case step >= 1:
		return thousands(int(math.Round(v)))
	case step >= 0.1:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.2f", v)
	}
}

// f1 writes a coordinate with one decimal.
func f1(v float64) string { return fmt.Sprintf("%.1f", v) }
