package check

import (
	"testing"
	"time"
)

// Remedies are counted by bundle and agent, as recorded in memory or read
// back from faults.jsonl; none is said plainly; the peak of Maestro's spec
// queue is said when it was read. The verdict never fails.
func TestDeliveriesLost(t *testing.T) {
	at := time.Date(2026, 12, 6, 3, 0, 0, 0, time.UTC)
	cases := []struct {
		name   string
		faults []Fault
		peak   int
		value  float64
		detail string
	}{
		{"none", []Fault{{Name: "api-503", At: at}}, 0, 0, "none: every spec Maestro dispatched reached its simulated agent within a minute"},
		{"none, queue read", nil, 2649, 0, "none: every spec Maestro dispatched reached its simulated agent within a minute (Maestro's spec event queue peaked at 2649 events, 03:00:00; a delivery counts from Maestro's dispatch)"},
		{"two agents", []Fault{
			{Name: "delivery-remedy", At: at, Params: map[string]any{"consumer": "soak-c1", "bundles": []string{"a", "b"}}},
			{Name: "delivery-remedy", At: at.Add(time.Second), Params: map[string]any{"consumer": "soak-c2", "bundles": []any{"c"}}}},
			0, 3, "3 bundles on 2 agents, each agent restarted once for them (its resync delivered them): soak-c1: 2 at 03:00:00; soak-c2: 1 at 03:00:01"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := onlyVerdict(t, deliveriesLost, &History{Faults: c.faults, Meta: Meta{MaestroSpecQueuePeak: c.peak, MaestroSpecQueuePeakAt: at}})
			if !v.Pass || v.Value != c.value || v.Detail != c.detail {
				t.Errorf("got %v %v %q, want pass %v %q", v.Pass, v.Value, v.Detail, c.value, c.detail)
			}
		})
	}
}

// Deletions delivered again after their confirmation are counted, with
// the creates over them; the verdict never fails.
func TestRedelivered(t *testing.T) {
	at := time.Date(2026, 12, 6, 4, 32, 41, 693e6, time.UTC)
	cases := []struct {
		name   string
		agents []AgentEvent
		value  float64
		detail string
	}{
		{"none", []AgentEvent{{Consumer: "soak-c1", Name: "u1", Kind: "add"}}, 0, "none"},
		{"one, created again over it", []AgentEvent{
			{Consumer: "soak-c12", Name: "u1", Kind: "add", Deleting: true, Redelivered: true, At: at},
			{Consumer: "soak-c12", Name: "u1", Kind: "add", OldRedelivered: true, At: at}},
			1, "1 deleting works received after the agent confirmed them, 1 bundles created again over such a copy; first: soak-c12 u1 at 04:32:41.693"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := onlyVerdict(t, redelivered, &History{Agents: c.agents})
			if !v.Pass || v.Value != c.value || v.Detail != c.detail {
				t.Errorf("got %v %v %q, want pass %v %q", v.Pass, v.Value, v.Detail, c.value, c.detail)
			}
		})
	}
}
