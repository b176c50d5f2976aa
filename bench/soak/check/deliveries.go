package check

import (
	"fmt"
	"strings"
)

// deliveriesLost reports the spec changes Maestro held and never delivered
// to a simulated agent, which the harness healed by restarting the agent
// (faults "delivery-remedy": docs/reliability.md, "A PostgreSQL restart:
// spec changes Maestro never delivers"). It is Maestro's loss, not the
// adapter's, so it does not fail the run by itself; whether the remedy
// healed them is convergence's verdict, and a remedy that could not be
// made is "faults made"'s.
func deliveriesLost(r *Report, h *History) {
	queue := ""
	if h.Meta.MaestroSpecQueuePeak > 0 {
		queue = fmt.Sprintf(" (Maestro's spec event queue peaked at %d events, %s; a delivery counts from Maestro's dispatch)",
			h.Meta.MaestroSpecQueuePeak, h.Meta.MaestroSpecQueuePeakAt.UTC().Format("15:04:05"))
	}
	bundles := 0
	var lines []string
	for _, f := range h.Faults {
		if f.Name != "delivery-remedy" {
			continue
		}
		n := 0
		if l, ok := f.Params["bundles"].([]any); ok {
			n = len(l)
		} else if l, ok := f.Params["bundles"].([]string); ok {
			n = len(l)
		}
		bundles += n
		lines = append(lines, fmt.Sprintf("%v: %d at %s", f.Params["consumer"], n, f.At.UTC().Format("15:04:05")))
	}
	if len(lines) == 0 {
		r.add("deliveries Maestro lost", 0, "reported", true, "none: every spec Maestro dispatched reached its simulated agent within a minute%s", queue)
		return
	}
	r.add("deliveries Maestro lost", float64(bundles), "reported", true,
		"%d bundles on %d agents, each agent restarted once for them (its resync delivered them)%s: %s", bundles, len(lines), queue, strings.Join(lines, "; "))
}

// redelivered reports the deletions Maestro delivered to an agent again
// after the agent had confirmed them (agentsim.SpecEvent.Redelivered) and
// the bundles created again over such a copy: Maestro sends one deleting
// spec per delete request and per resync answer, read from its database
// before the agent's confirmation removed the bundle, and sdk-go's agent
// store adds a deleting work it no longer holds (docs/reliability.md,
// issue 48). The copy holds no object, so a create over it is no
// duplicate; it is Maestro's and sdk-go's behaviour, reported, not failed.
func redelivered(r *Report, h *History) {
	copies, over := 0, 0
	var lines []string
	for _, e := range h.Agents {
		if e.Redelivered {
			copies++
			if len(lines) < 5 {
				lines = append(lines, fmt.Sprintf("%s %s at %s", e.Consumer, e.Name, e.At.UTC().Format("15:04:05.000")))
			}
		}
		if e.OldRedelivered {
			over++
		}
	}
	if copies == 0 {
		r.add("deletions delivered again after confirmation", 0, "reported", true, "none")
		return
	}
	r.add("deletions delivered again after confirmation", float64(copies), "reported", true,
		"%d deleting works received after the agent confirmed them, %d bundles created again over such a copy; first: %s",
		copies, over, strings.Join(lines, "; "))
}
