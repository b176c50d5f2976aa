package main

import "testing"

// TestDrainSettled: the drain goes on while a cluster's last generation is
// not yet reported (its report may still come, after an API outage, and
// then need a resend), and while one is reported not ready; it is settled
// only when every cluster is reported ready at its generation. The
// 30-minute soak's drain stopped at once because, at its start, the final
// wave's reports were still held by the API outage: 34 recreations were
// left waiting for an event that never came.
func TestDrainSettled(t *testing.T) {
	ready := reportedStatus{ok: true, generation: 2, applied: "True"}
	cases := []struct {
		name    string
		c       cluster
		settled bool
	}{
		{"reported ready at its generation", cluster{generation: 2, reported: ready}, true},
		{"deleted and finalized", cluster{generation: 2, deleted: true, reported: reportedStatus{ok: true, generation: 2, finalized: "True"}}, true},
		{"last generation not yet reported (outage)", cluster{generation: 2, reported: reportedStatus{ok: true, generation: 1, applied: "True"}}, false},
		{"never reported", cluster{generation: 1}, false},
		{"reported not ready (recreation pending)", cluster{generation: 2, reported: reportedStatus{ok: true, generation: 2, applied: "False"}}, false},
	}
	for _, c := range cases {
		a := &recordingAPI{clusters: map[string]*cluster{}}
		c.c.id = "c1"
		a.add(&c.c)
		if got := a.settled(); got != c.settled {
			t.Errorf("%s: settled %v, want %v", c.name, got, c.settled)
		}
	}
}
