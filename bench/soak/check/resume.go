package check

import (
	"fmt"
	"slices"
	"strings"
)

// ResumeLimit is how soon after Maestro answers again every replica must
// have written to it (issue 48: before the reconnect fix a source client
// waited up to two minutes, refusing every write meanwhile).
const ResumeLimit = 5.0 // seconds

// ResumeKey is the maestro-restart fault's param that records, per
// replica, the seconds from Maestro healthy again to that replica's first
// write Maestro accepted (-1: none within the harness's watch).
const ResumeKey = "writes_resumed_s"

// writesResumed: after each Maestro restart, every replica wrote to
// Maestro again within ResumeLimit. The harness makes writes due at the
// restart (a generation bump of some clusters) and watches each replica's
// accepted writes, so a replica that wrote nothing in its watch failed to,
// and fails the run. A run with no Maestro restart has nothing to judge.
func writesResumed(r *Report, h *History) {
	worst, restarts, failed := 0.0, 0, 0
	var bad, all []string
	for _, f := range h.Faults {
		if f.Name != "maestro-restart" {
			continue
		}
		if f.Error != "" {
			failed++ // the fault itself failed: reported with its error
			continue
		}
		restarts++
		per, ok := f.Params[ResumeKey].(map[string]any)
		if !ok || len(per) == 0 {
			bad = append(bad, fmt.Sprintf("restart at %s: no %s recorded", f.At.UTC().Format("15:04:05"), ResumeKey))
			worst = max(worst, -1)
			continue
		}
		names := make([]string, 0, len(per))
		for n := range per {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, n := range names {
			s, _ := per[n].(float64)
			line := fmt.Sprintf("replica %s %.1f s after the restart at %s", n, s, f.At.UTC().Format("15:04:05"))
			if s < 0 {
				line = fmt.Sprintf("replica %s wrote nothing after the restart at %s", n, f.At.UTC().Format("15:04:05"))
			}
			all = append(all, line)
			if s < 0 || s > ResumeLimit {
				bad = append(bad, line)
			}
			worst = max(worst, s)
		}
	}
	if restarts == 0 {
		r.add("writes resumed after Maestro restart", 0, fmt.Sprintf("<= %.0f s", ResumeLimit), true,
			"no Maestro restart in this run (%d failed, not judged)", failed)
		return
	}
	if len(bad) > 0 {
		r.add("writes resumed after Maestro restart", worst, fmt.Sprintf("<= %.0f s", ResumeLimit), false, "%s", strings.Join(bad, "; "))
		return
	}
	r.add("writes resumed after Maestro restart", worst, fmt.Sprintf("<= %.0f s", ResumeLimit), true, "%s", strings.Join(all, "; "))
}
