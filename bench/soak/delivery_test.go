package main

import (
	"reflect"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/bench/soak/check"
	"github.com/bundle-adapter/bundle-adapter/internal/stacktest"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/agentsim"
)

// A bundle whose spec Maestro has held for deliveryAfter without its
// simulated agent receiving it, or with no Applied status recorded, is
// lost, per consumer, and so is a deletion Maestro still holds (the agent
// saw it deleting, or gone, and Maestro never got the confirmation); one
// the agent received and Maestro holds Applied, one of a real agent's
// consumer, and one not yet behind for deliveryAfter are not; a consumer
// returned starts over, and what Maestro no longer holds is forgotten.
func TestDeliveriesLost(t *testing.T) {
	d := newDeliveries(nil)
	work := func(id, fp string, deleting bool) *workv1.ManifestWork {
		w := &workv1.ManifestWork{ObjectMeta: metav1.ObjectMeta{Name: id, Annotations: map[string]string{fingerprintAnnotation: fp}}}
		if deleting {
			w.DeletionTimestamp = &metav1.Time{Time: time.Now()}
		}
		return w
	}
	d.saw(agentsim.SpecEvent{Kind: "add", Work: work("id-ok", "f1", false)})
	d.saw(agentsim.SpecEvent{Kind: "add", Work: work("id-old", "f1", false)})      // Maestro holds f2
	d.saw(agentsim.SpecEvent{Kind: "update", Work: work("id-del", "f1", true)})    // deleting seen
	d.saw(agentsim.SpecEvent{Kind: "delete", Work: work("id-gone", "f1", false)})  // gone
	d.saw(agentsim.SpecEvent{Kind: "add", Work: work("id-notdel", "f1", false)})   // Maestro deletes it
	d.saw(agentsim.SpecEvent{Kind: "add", Work: work("id-nostatus", "f1", false)}) // Maestro records no Applied
	held := []check.Bundle{
		{Consumer: "c1", Name: "ok", ID: "id-ok", Fingerprint: "f1", Applied: "True"},
		{Consumer: "c1", Name: "nostatus", ID: "id-nostatus", Fingerprint: "f1"},
		{Consumer: "c1", Name: "old", ID: "id-old", Fingerprint: "f2"},
		{Consumer: "c1", Name: "del", ID: "id-del", Fingerprint: "f1", Deleting: true},
		{Consumer: "c2", Name: "gone", ID: "id-gone", Fingerprint: "f1", Deleting: true},
		{Consumer: "c2", Name: "notdel", ID: "id-notdel", Fingerprint: "f1", Deleting: true},
		{Consumer: "c2", Name: "never", ID: "id-never", Fingerprint: "f1"},
		{Consumer: "real", Name: "r", ID: "id-r", Fingerprint: "f1"},
	}
	sim := []string{"c1", "c2"}
	idle := stacktest.MaestroSpecQueue{Added: 10, Done: 10, Start: 1}
	t0 := time.Date(2026, 12, 6, 3, 0, 0, 0, time.UTC)
	if got := d.lost(held, sim, t0, idle); len(got) != 0 {
		t.Errorf("first look: %v, want nothing lost yet", got)
	}
	if got := d.lost(held, sim, t0.Add(deliveryAfter-time.Second), idle); len(got) != 0 {
		t.Errorf("before deliveryAfter: %v, want nothing lost yet", got)
	}
	want := map[string][]string{"c1": {"del", "nostatus", "old"}, "c2": {"gone", "never", "notdel"}}
	if got := d.lost(held, sim, t0.Add(deliveryAfter), idle); !reflect.DeepEqual(got, want) {
		t.Errorf("after deliveryAfter: %v, want %v", got, want)
	}
	if got := d.lost(held, sim, t0.Add(deliveryAfter+time.Second), idle); len(got) != 0 {
		t.Errorf("right after a remedy: %v, want the consumers started over", got)
	}
	d.lost(held[:1], sim, t0.Add(2*deliveryAfter), idle)
	if len(d.behind) != 0 || len(d.mark) != 0 {
		t.Errorf("behind %v, marks %v after Maestro dropped them, want none", d.behind, d.mark)
	}
}

// A spec's minute starts when Maestro has dispatched it: once its spec
// queue has processed every event queued when the bundle was first seen
// missing (Maestro works the queue in order, one event at a time). A
// bundle behind a deep queue is not lost however long the queue takes; an
// event Maestro never queued (its listener's gap) is dispatched as soon as
// the queue has drained past the mark; a restarted Maestro (a new process
// start, counters from zero) starts every mark over.
func TestDeliveriesCountFromDispatch(t *testing.T) {
	never := []check.Bundle{{Consumer: "c1", Name: "n", ID: "id-n", Fingerprint: "f1"}}
	sim := []string{"c1"}
	t0 := time.Date(2026, 12, 7, 3, 0, 0, 0, time.UTC)
	at := func(s time.Duration) time.Time { return t0.Add(s) }
	type look struct {
		at   time.Time
		q    stacktest.MaestroSpecQueue
		lost bool
	}
	for _, tc := range []struct {
		name  string
		looks []look
	}{
		{"idle queue: a minute from the first look", []look{
			{at(0), stacktest.MaestroSpecQueue{Added: 5, Done: 5, Start: 1}, false},
			{at(deliveryAfter), stacktest.MaestroSpecQueue{Added: 5, Done: 5, Start: 1}, true},
		}},
		{"deep queue: a minute from the dispatch, not from the write", []look{
			{at(0), stacktest.MaestroSpecQueue{Added: 3000, Done: 100, Depth: 2900, Start: 1}, false},
			{at(deliveryAfter), stacktest.MaestroSpecQueue{Added: 4000, Done: 2000, Depth: 2000, Start: 1}, false},
			{at(2 * deliveryAfter), stacktest.MaestroSpecQueue{Added: 4000, Done: 2999, Depth: 1001, Start: 1}, false},
			{at(2*deliveryAfter + 15*time.Second), stacktest.MaestroSpecQueue{Added: 4000, Done: 3000, Depth: 1000, Start: 1}, false},
			{at(3*deliveryAfter + 14*time.Second), stacktest.MaestroSpecQueue{Added: 4000, Done: 4000, Start: 1}, false},
			{at(3*deliveryAfter + 15*time.Second), stacktest.MaestroSpecQueue{Added: 4000, Done: 4000, Start: 1}, true},
		}},
		{"Maestro restarted: marks start over on the new counters", []look{
			{at(0), stacktest.MaestroSpecQueue{Added: 3000, Done: 100, Depth: 2900, Start: 1}, false},
			{at(deliveryAfter), stacktest.MaestroSpecQueue{Added: 500, Done: 0, Depth: 500, Start: 2}, false},
			{at(2 * deliveryAfter), stacktest.MaestroSpecQueue{Added: 600, Done: 499, Depth: 101, Start: 2}, false},
			{at(2*deliveryAfter + 15*time.Second), stacktest.MaestroSpecQueue{Added: 600, Done: 500, Depth: 100, Start: 2}, false},
			{at(3*deliveryAfter + 15*time.Second), stacktest.MaestroSpecQueue{Added: 600, Done: 600, Start: 2}, true},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := newDeliveries(nil)
			for i, l := range tc.looks {
				got := d.lost(never, sim, l.at, l.q)
				if lost := len(got["c1"]) == 1; lost != l.lost {
					t.Errorf("look %d at +%v (queue %+v): lost %v, want %v", i, l.at.Sub(t0), l.q, lost, l.lost)
				}
			}
		})
	}
}
