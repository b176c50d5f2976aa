package view_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/bundle-adapter/bundle-adapter/maestroclient/view"
)

// Entries past MaxAge are dropped as reads go on, so bundles never read
// again do not stay in memory; fresh ones stay.
func TestStaleEntriesAreSwept(t *testing.T) {
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	v := view.New(view.Options{MaxAge: time.Minute, Clock: func() time.Time { return now }, Synced: true})
	work := fixture(t)
	observe := func(n int, prefix string) {
		for i := range n {
			w := work.DeepCopy()
			w.Name = fmt.Sprintf("%s-%d", prefix, i)
			v.Observe(v.Begin(), consumer, w.Name, w)
		}
	}
	observe(1000, "old")
	now = now.Add(2 * time.Minute)
	observe(1100, "new")
	if got := v.Len(); got != 1100 {
		t.Errorf("view holds %d entries after the sweep, want the 1100 fresh ones", got)
	}
	if _, ok := v.Lookup(consumer, "new-0"); !ok {
		t.Error("a fresh entry was swept")
	}
}

// A forgotten bundle leaves a marker that keeps reads in flight from
// storing; the sweep drops markers past MaxAge too, and a read that began
// before a swept marker still stores nothing.
func TestSweptForgetStillStopsOlderReads(t *testing.T) {
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	v := view.New(view.Options{MaxAge: time.Minute, Clock: func() time.Time { return now }, Synced: true})
	work := fixture(t)
	slow := v.Begin()
	v.Forget(consumer, work.Name)
	now = now.Add(2 * time.Minute)
	for i := range 1100 {
		w := work.DeepCopy()
		w.Name = fmt.Sprintf("new-%d", i)
		v.Observe(v.Begin(), consumer, w.Name, w)
	}
	if got := v.Len(); got != 1100 {
		t.Errorf("view holds %d entries after the sweep, want the 1100 fresh ones (the marker swept)", got)
	}
	v.Observe(slow, consumer, work.Name, work)
	if _, ok := v.Lookup(consumer, work.Name); ok {
		t.Error("a read that began before the forget stored its answer after the marker was swept")
	}
}
