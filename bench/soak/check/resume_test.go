package check

import (
	"testing"
	"time"
)

// TestWritesResumed: every replica's first accepted Maestro write after each
// Maestro restart must come within ResumeLimit (issue 48); a replica that
// wrote nothing in the harness's watch, a restart without the watch's
// record, and one replica slow on a second restart each fail. A failed
// restart (the fault's own error) and a run without one are not judged.
func TestWritesResumed(t *testing.T) {
	at := time.Date(2026, 12, 5, 17, 0, 0, 0, time.UTC)
	restart := func(per map[string]any) Fault {
		f := Fault{Name: "maestro-restart", At: at, End: at.Add(8 * time.Second), Params: map[string]any{}}
		if per != nil {
			f.Params[ResumeKey] = per
		}
		return f
	}
	cases := []struct {
		name   string
		faults []Fault
		pass   bool
		value  float64
		detail string
	}{
		{name: "no restart", faults: []Fault{{Name: "api-503", At: at}}, pass: true,
			detail: "no Maestro restart in this run (0 failed, not judged)"},
		{name: "both soon", faults: []Fault{restart(map[string]any{"b": 2.5, "a": 1.2})}, pass: true, value: 2.5,
			detail: "replica a 1.2 s after the restart at 17:00:00; replica b 2.5 s after the restart at 17:00:00"},
		{name: "one late", faults: []Fault{restart(map[string]any{"a": 1.0, "b": 94.0})}, value: 94,
			detail: "replica b 94.0 s after the restart at 17:00:00"},
		{name: "exactly the limit", faults: []Fault{restart(map[string]any{"a": ResumeLimit})}, pass: true, value: ResumeLimit,
			detail: "replica a 5.0 s after the restart at 17:00:00"},
		{name: "one wrote nothing", faults: []Fault{restart(map[string]any{"a": 1.0, "b": -1.0})}, value: 1,
			detail: "replica b wrote nothing after the restart at 17:00:00"},
		{name: "not watched", faults: []Fault{restart(nil)}, value: 0,
			detail: "restart at 17:00:00: no writes_resumed_s recorded"},
		{name: "second restart slow", faults: []Fault{restart(map[string]any{"a": 1.0}), restart(map[string]any{"a": 6.0})}, value: 6,
			detail: "replica a 6.0 s after the restart at 17:00:00"},
		{name: "failed restart is not judged", faults: []Fault{{Name: "maestro-restart", At: at, Error: "maestro.sh start: exit 1"}}, pass: true,
			detail: "no Maestro restart in this run (1 failed, not judged)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := &Report{}
			writesResumed(r, &History{Faults: c.faults})
			if len(r.Verdicts) != 1 {
				t.Fatalf("%d verdicts, want 1", len(r.Verdicts))
			}
			v := r.Verdicts[0]
			if v.Pass != c.pass || v.Value != c.value || v.Detail != c.detail {
				t.Errorf("got pass %v value %v detail %q\nwant pass %v value %v detail %q", v.Pass, v.Value, v.Detail, c.pass, c.value, c.detail)
			}
		})
	}
}
