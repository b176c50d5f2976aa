package check

import (
	"testing"
	"time"
)

// A run whose fault could not be made fails, naming the fault and its
// error; a run whose faults were all made passes, and says how many.
func TestFaultsMade(t *testing.T) {
	at := time.Date(2026, 12, 6, 3, 0, 0, 0, time.UTC)
	cases := []struct {
		name   string
		faults []Fault
		pass   bool
		detail string
	}{
		{"none", nil, true, "0 of 0 faults made"},
		{"all made", []Fault{{Name: "api-503", At: at}, {Name: "maestro-restart", At: at}}, true, "2 of 2 faults made"},
		{"one failed", []Fault{{Name: "api-503", At: at}, {Name: "maestro-restart", At: at, Error: "maestro.sh start: exit 1"}}, false,
			"1 of 2 faults not made: maestro-restart at 03:00:00: maestro.sh start: exit 1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if v := onlyVerdict(t, faultsMade, &History{Faults: c.faults}); v.Pass != c.pass || v.Detail != c.detail {
				t.Errorf("pass %v %q, want %v %q", v.Pass, v.Detail, c.pass, c.detail)
			}
		})
	}
}
