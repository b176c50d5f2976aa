package check

import (
	"fmt"
	"slices"
	"strings"
)

// ResumeLimit is how soon after Maestro answers again every replica must
// be able to write to it (issue 48: before the reconnect fix a source
// client waited up to two minutes, refusing every write meanwhile).
const ResumeLimit = 5.0 // seconds

// ResumeKey is the maestro-restart fault's param that records, per
// replica, the seconds from Maestro healthy again to every one of that
// replica's Maestro source clients holding its connection again (-1: not
// within the harness's watch). RefusedKey records, per replica, the
// Maestro writes it refused as unavailable from ResumeLimit after that
// moment to the watch's end (-1: not known).
const (
	ResumeKey  = "writes_resumed_s"
	RefusedKey = "writes_refused_after_limit"
)

// writesResumed: after each Maestro restart, every replica could write to
// Maestro again within ResumeLimit (all its source clients connected), and
// refused no write as unavailable after that. The connection is what
// decides whether sdk-go accepts a write; the refused writes check that
// the connection said so truly, whenever writes came (events reach a
// replica after whatever the queue holds). A run with no Maestro restart
// has nothing to judge; a restart whose fault failed is reported with its
// error, not judged here.
func writesResumed(r *Report, h *History) {
	worst, restarts, failed := 0.0, 0, 0
	var bad, all []string
	for _, f := range h.Faults {
		if f.Name != "maestro-restart" {
			continue
		}
		if f.Error != "" {
			failed++
			continue
		}
		restarts++
		at := f.At.UTC().Format("15:04:05")
		per, ok := f.Params[ResumeKey].(map[string]any)
		if !ok || len(per) == 0 {
			bad = append(bad, fmt.Sprintf("restart at %s: no %s recorded", at, ResumeKey))
			continue
		}
		refused, _ := f.Params[RefusedKey].(map[string]any)
		names := make([]string, 0, len(per))
		for n := range per {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, n := range names {
			line, ok, s := resumedLine(n, at, per[n], refused[n])
			all = append(all, line)
			if !ok {
				bad = append(bad, line)
			}
			worst = max(worst, s)
		}
	}
	const name = "writes resumed after Maestro restart"
	want := fmt.Sprintf("<= %.0f s", ResumeLimit)
	switch {
	case restarts == 0:
		r.add(name, 0, want, true, "no Maestro restart in this run (%d failed, not judged)", failed)
	case len(bad) > 0:
		r.add(name, worst, want, false, "%s", strings.Join(bad, "; "))
	default:
		r.add(name, worst, want, true, "%s", strings.Join(all, "; "))
	}
}

// resumedLine words one replica's record of one restart and judges it.
func resumedLine(replica, at string, resumed, refused any) (line string, ok bool, seconds float64) {
	s, isNum := resumed.(float64)
	if !isNum {
		s = -1
	}
	line = fmt.Sprintf("replica %s connected %.1f s after the restart at %s", replica, s, at)
	ok = s >= 0 && s <= ResumeLimit
	if s < 0 {
		line = fmt.Sprintf("replica %s not connected within the watch after the restart at %s", replica, at)
	}
	switch n, known := refused.(float64); {
	case !known || n < 0:
		line += ", writes refused later not known"
	case n > 0:
		line += fmt.Sprintf(", yet %.0f writes refused as unavailable %.0f s or more after it", n, ResumeLimit)
		ok = false
	}
	return line, ok, s
}
