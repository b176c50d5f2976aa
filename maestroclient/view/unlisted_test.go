package view_test

import (
	"context"
	"sync"
	"testing"
	"time"

	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/memmaestro"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/view"
)

// UnlistedCreates counts this process's creates past the grace that have
// no entry: each way an entry comes (the agent's own status, a List or a
// read that began after the create) takes one off, a List that began
// before the create does not, and nothing counts within the grace.
func TestUnlistedCreates(t *testing.T) {
	const grace = 2 * time.Second
	tests := []struct {
		name  string
		after func(h *createHarness)
		want  int
	}{
		{"no status, no List", func(h *createHarness) {}, 1},
		{"listed after the create", func(h *createHarness) { h.list(0, nil) }, 0},
		{"read after the create", func(h *createHarness) { h.read() }, 0},
		{"the agent's status of the create", func(h *createHarness) { h.agentReports(h.writeID(), "Applied") }, 0},
		{"another bundle's status: still unlisted", func(h *createHarness) { h.agentReports(earlier, "Applied") }, 1},
		{"a List that began before the create: still unlisted", nil, 1},
		{"updated since: no longer this process's pending create", func(h *createHarness) {
			h.view.Forget(consumer, name)
		}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newCreateHarness(t)
			if tt.after == nil {
				l := h.view.BeginList()
				h.ownCreate()
				h.view.Refresh(l, []adapter.BundleKey{{Consumer: consumer, Name: name}}, []*workv1.ManifestWork{h.current()})
			} else {
				h.ownCreate()
			}
			if n := h.view.UnlistedCreates(grace); n != 0 {
				t.Fatalf("%d unlisted within the grace, want 0", n)
			}
			h.now = h.now.Add(grace)
			if tt.after != nil {
				tt.after(h)
			}
			if n := h.view.UnlistedCreates(grace); n != tt.want {
				t.Errorf("%d unlisted, want %d", n, tt.want)
			}
		})
	}
}

// The refresher lists once creates go unreported past the grace, so their
// next events are served from that List instead of a read each; with the
// grace negative it waits for Every.
func TestRefresherListsForUnlistedCreates(t *testing.T) {
	for _, tt := range []struct {
		name  string
		grace time.Duration
		lists bool
	}{{"on", 100 * time.Millisecond, true}, {"off", -1, false}} {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			now := time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC)
			clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
			store := memmaestro.New(memmaestro.Options{Clock: clock})
			v := view.New(view.Options{MaxAge: time.Minute, Clock: clock})
			v.Subscribed() // synced: Run lists at once
			m := view.Maestro(store, v)
			f := &fakeLister{t: t, lists: make(chan view.RefreshResult, 100)}
			r := view.NewRefresher(v, view.RefresherOptions{List: f.list, Every: time.Hour, CreateGrace: tt.grace,
				Listed: func(res view.RefreshResult) { f.lists <- res }})
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() { r.Run(ctx); close(done) }()
			defer func() { cancel(); <-done }()
			nextList(t, f)
			<-r.Filled()
			if _, err := m.Create(ctx, consumer, fixture(t), adapter.ReadAbsent); err != nil {
				t.Fatal(err)
			}
			if _, ok := v.Lookup(consumer, name); ok {
				t.Fatal("hit right after the create, before any List or status")
			}
			mu.Lock()
			now = now.Add(time.Second) // the create is past the grace
			mu.Unlock()
			select {
			case res := <-f.lists:
				if !tt.lists {
					t.Fatalf("listed with the grace off: %+v", res)
				}
				if _, ok := v.Lookup(consumer, name); !ok {
					t.Error("miss after the List the unlisted create caused")
				}
				if n := v.UnlistedCreates(0); n != 0 {
					t.Errorf("%d unlisted after the List", n)
				}
			case <-time.After(3 * time.Second):
				if tt.lists {
					t.Fatal("no List for an unlisted create within 3 s")
				}
			}
		})
	}
}
