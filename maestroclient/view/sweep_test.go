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
