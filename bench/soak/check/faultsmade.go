package check

import (
	"fmt"
	"strings"
)

// faultsMade: every fault the harness recorded was made. A fault whose
// injection failed (a script that did not stop Maestro, a connection that
// could not be closed) leaves the run without what it claims to have
// survived, so the run fails naming it, whatever the other invariants say.
func faultsMade(r *Report, h *History) {
	var bad []string
	for _, f := range h.Faults {
		if f.Error != "" {
			bad = append(bad, fmt.Sprintf("%s at %s: %s", f.Name, f.At.UTC().Format("15:04:05"), f.Error))
		}
	}
	if len(bad) > 0 {
		r.add("faults made", float64(len(bad)), "0 failed", false, "%d of %d faults not made: %s", len(bad), len(h.Faults), strings.Join(bad, "; "))
		return
	}
	r.add("faults made", 0, "0 failed", true, "%d of %d faults made", len(h.Faults), len(h.Faults))
}
