package check

import (
	"testing"
	"time"
)

// TestWritesResumed: after each Maestro restart every replica's source
// clients must all be connected within ResumeLimit and no write refused as
// unavailable after it (issue 48). A replica slow or never connected, one
// that refused writes though it said connected, a restart without the
// watch's record, and one replica slow on a second restart each fail. A
// failed restart (the fault's own error) and a run without one are not
// judged; refusals not known (the process changed) are said, not failed.
func TestWritesResumed(t *testing.T) {
	at := time.Date(2026, 12, 5, 17, 0, 0, 0, time.UTC)
	restart := func(per, refused map[string]any) Fault {
		f := Fault{Name: "maestro-restart", At: at, End: at.Add(30 * time.Second), Params: map[string]any{}}
		if per != nil {
			f.Params[ResumeKey] = per
		}
		if refused != nil {
			f.Params[RefusedKey] = refused
		}
		return f
	}
	none := map[string]any{"a": 0.0, "b": 0.0}
	cases := []struct {
		name   string
		faults []Fault
		pass   bool
		value  float64
		detail string
	}{
		{name: "no restart", faults: []Fault{{Name: "api-503", At: at}}, pass: true,
			detail: "no Maestro restart in this run (0 failed, not judged)"},
		{name: "both soon", faults: []Fault{restart(map[string]any{"b": 2.5, "a": 1.2}, none)}, pass: true, value: 2.5,
			detail: "replica a connected 1.2 s after the restart at 17:00:00; replica b connected 2.5 s after the restart at 17:00:00"},
		{name: "one late", faults: []Fault{restart(map[string]any{"a": 1.0, "b": 94.0}, none)}, value: 94,
			detail: "replica b connected 94.0 s after the restart at 17:00:00"},
		{name: "exactly the limit", faults: []Fault{restart(map[string]any{"a": ResumeLimit}, none)}, pass: true, value: ResumeLimit,
			detail: "replica a connected 5.0 s after the restart at 17:00:00"},
		{name: "one never connected", faults: []Fault{restart(map[string]any{"a": 1.0, "b": -1.0}, none)}, value: 1,
			detail: "replica b not connected within the watch after the restart at 17:00:00"},
		{name: "connected yet refused writes", faults: []Fault{restart(map[string]any{"a": 1.0, "b": 1.5}, map[string]any{"a": 0.0, "b": 12.0})}, value: 1.5,
			detail: "replica b connected 1.5 s after the restart at 17:00:00, yet 12 writes refused as unavailable 5 s or more after it"},
		{name: "refusals not known (process changed)", faults: []Fault{restart(map[string]any{"a": 1.0}, map[string]any{"a": -1.0})}, pass: true, value: 1,
			detail: "replica a connected 1.0 s after the restart at 17:00:00, writes refused later not known"},
		{name: "refusals not recorded", faults: []Fault{restart(map[string]any{"a": 1.0}, nil)}, pass: true, value: 1,
			detail: "replica a connected 1.0 s after the restart at 17:00:00, writes refused later not known"},
		{name: "not watched", faults: []Fault{restart(nil, nil)}, value: 0,
			detail: "restart at 17:00:00: no writes_resumed_s recorded"},
		{name: "second restart slow", faults: []Fault{restart(map[string]any{"a": 1.0}, none), restart(map[string]any{"a": 6.0}, none)}, value: 6,
			detail: "replica a connected 6.0 s after the restart at 17:00:00"},
		{name: "failed restart is not judged", faults: []Fault{{Name: "maestro-restart", At: at, Error: "maestro.sh start: exit 1"}}, pass: true,
			detail: "no Maestro restart in this run (1 failed, not judged)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := onlyVerdict(t, writesResumed, &History{Faults: c.faults})
			if v.Pass != c.pass || v.Value != c.value || v.Detail != c.detail {
				t.Errorf("got pass %v value %v detail %q\nwant pass %v value %v detail %q", v.Pass, v.Value, v.Detail, c.pass, c.value, c.detail)
			}
		})
	}
}
