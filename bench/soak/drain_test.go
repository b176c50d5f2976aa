package main

import (
	"slices"
	"testing"
	"time"
)

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

// TestDrainResends: the drain resends as Sentinel does (issue 41): a
// cluster reported not ready at its generation at every pass, and a
// cluster whose newest status is older than its generation (or that has
// none) once the adapter has left it alone for drainQuiet with the API
// up, so that an event held for redelivery reports first. Before, a
// cluster whose status a stale event had moved back to an older
// generation (reported at generation 1 after generation 2) was never
// resent and stayed behind (19 of 2,100 clusters in a 5-minute soak).
func TestDrainResends(t *testing.T) {
	now := time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC)
	quiet := now.Add(-drainQuiet)
	busy := now.Add(-drainQuiet + time.Second)
	ready := reportedStatus{ok: true, generation: 2, applied: "True"}
	cases := []struct {
		name     string
		c        cluster
		outageTo time.Time // end of the last API outage; zero: none
		resend   bool
	}{
		{"ready at its generation", cluster{generation: 2, reported: ready, touched: quiet}, time.Time{}, false},
		{"deleted and finalized", cluster{generation: 2, deleted: true, reported: reportedStatus{ok: true, generation: 2, finalized: "True"}, touched: quiet}, time.Time{}, false},
		{"not ready at its generation (recreation pending)", cluster{generation: 2, reported: reportedStatus{ok: true, generation: 2, applied: "False"}, touched: busy}, time.Time{}, true},
		{"deleted, not finalized", cluster{generation: 2, deleted: true, reported: reportedStatus{ok: true, generation: 2, finalized: "False"}, touched: busy}, time.Time{}, true},
		{"not ready during an outage", cluster{generation: 2, reported: reportedStatus{ok: true, generation: 2, applied: "False"}, touched: busy}, now.Add(time.Minute), true},
		{"moved back to an older generation, quiet", cluster{generation: 2, reported: reportedStatus{ok: true, generation: 1, applied: "False"}, touched: quiet}, time.Time{}, true},
		{"older generation reported ready, quiet", cluster{generation: 2, reported: reportedStatus{ok: true, generation: 1, applied: "True"}, touched: quiet}, time.Time{}, true},
		{"never reported, quiet (an event acked unreported)", cluster{generation: 1, touched: quiet}, time.Time{}, true},
		{"behind, still being worked on", cluster{generation: 2, reported: reportedStatus{ok: true, generation: 1, applied: "True"}, touched: busy}, time.Time{}, false},
		{"behind, quiet, API down", cluster{generation: 2, reported: reportedStatus{ok: true, generation: 1}, touched: quiet}, now.Add(time.Second), false},
		{"behind, quiet, API up again too recently (redeliveries due)", cluster{generation: 2, reported: reportedStatus{ok: true, generation: 1}, touched: quiet.Add(-time.Minute)}, now.Add(-drainQuiet + time.Second), false},
		{"behind, quiet, API up for drainQuiet", cluster{generation: 2, reported: reportedStatus{ok: true, generation: 1}, touched: quiet.Add(-time.Minute)}, quiet, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := &recordingAPI{clusters: map[string]*cluster{}}
			if !c.outageTo.IsZero() {
				a.down.Store(c.outageTo.UnixNano())
			}
			a.add(&cluster{id: "c0", generation: 2, reported: ready}) // never resent
			c.c.id = "c1"
			a.add(&c.c)
			var got []string
			for _, r := range a.drainResends(now, now) {
				got = append(got, r.id)
			}
			if want := map[bool][]string{true: {"c1"}, false: nil}[c.resend]; !slices.Equal(got, want) {
				t.Errorf("resent %v, want %v", got, want)
			}
		})
	}
}

// A cluster behind its generation is resent only once every event of it
// has left RabbitMQ: the run's queues (retry queues too, ready or
// unacknowledged) were seen empty after it was last touched. One whose
// event is still queued behind a backlog reports by itself and is not
// resent (it would count lost when the original reported); one acked
// unreported is resent once the queues empty; one reported not ready is
// resent whatever the queues hold.
func TestDrainWaitsForTheQueues(t *testing.T) {
	now := time.Date(2026, 12, 7, 4, 0, 0, 0, time.UTC)
	quiet := now.Add(-drainQuiet)
	cases := []struct {
		name    string
		c       cluster
		emptied time.Time
		resend  bool
	}{
		{"behind, quiet, queues empty since", cluster{generation: 2, reported: reportedStatus{ok: true, generation: 1}, touched: quiet}, now, true},
		{"behind, quiet, its event still queued (queues not empty since)", cluster{generation: 2, reported: reportedStatus{ok: true, generation: 1}, touched: quiet}, quiet.Add(-time.Second), false},
		{"never reported, quiet, queues never seen empty", cluster{generation: 1, touched: quiet}, time.Time{}, false},
		{"never reported, quiet, queues empty since (an event acked unreported)", cluster{generation: 1, touched: quiet}, quiet.Add(time.Second), true},
		{"not ready, queues busy: resent whatever they hold", cluster{generation: 2, reported: reportedStatus{ok: true, generation: 2, applied: "False"}, touched: quiet}, time.Time{}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := &recordingAPI{clusters: map[string]*cluster{}}
			c.c.id = "c1"
			a.add(&c.c)
			if got := len(a.drainResends(now, c.emptied)) == 1; got != c.resend {
				t.Errorf("resent %v, want %v", got, c.resend)
			}
		})
	}
}

// TestDrainTouch: a request for a cluster, and the publisher's event of
// it, restart its quiet time; an older instant never moves it back.
func TestDrainTouch(t *testing.T) {
	now := time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC)
	a := &recordingAPI{clusters: map[string]*cluster{}}
	a.add(&cluster{id: "c1", generation: 2})
	a.touch("c1", now.Add(-drainQuiet))
	if got := len(a.drainResends(now, now)); got != 1 {
		t.Fatalf("quiet for drainQuiet: %d resent, want 1", got)
	}
	a.touch("c1", now.Add(-time.Second))
	a.touch("c1", now.Add(-time.Hour))
	if got := len(a.drainResends(now, now)); got != 0 {
		t.Errorf("touched a second ago: %d resent, want 0", got)
	}
}
