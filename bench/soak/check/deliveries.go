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
		r.add("deliveries Maestro lost", 0, "reported", true, "none: every spec Maestro held reached its simulated agent within a minute")
		return
	}
	r.add("deliveries Maestro lost", float64(bundles), "reported", true,
		"%d bundles on %d agents, each agent restarted once for them (its resync delivered them): %s", bundles, len(lines), strings.Join(lines, "; "))
}
