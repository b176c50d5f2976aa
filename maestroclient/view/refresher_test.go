package view_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/view"
)

// fakeLister lists the fixture bundle, failing the first fail Lists;
// every List is sent on lists.
type fakeLister struct {
	t     *testing.T
	mu    sync.Mutex
	fail  int
	lists chan view.RefreshResult
}

func (f *fakeLister) list(ctx context.Context, page func([]adapter.BundleKey, []*workv1.ManifestWork, time.Time) error) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fail > 0 {
		f.fail--
		return errors.New("maestro unavailable")
	}
	return page([]adapter.BundleKey{{Consumer: consumer, Name: name}}, []*workv1.ManifestWork{fixture(f.t)}, time.Now())
}

func startRefresher(t *testing.T, v *view.View, f *fakeLister, every time.Duration) *view.Refresher {
	f.t, f.lists = t, make(chan view.RefreshResult, 100)
	r := view.NewRefresher(v, view.RefresherOptions{List: f.list, Every: every, MinBackoff: time.Millisecond,
		MaxBackoff: 2 * time.Millisecond, Listed: func(res view.RefreshResult) { f.lists <- res }})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { r.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return r
}

func nextList(t *testing.T, f *fakeLister) view.RefreshResult {
	t.Helper()
	select {
	case res := <-f.lists:
		return res
	case <-time.After(10 * time.Second):
		t.Fatal("no List")
		return view.RefreshResult{}
	}
}

// Nothing is listed before the first subscription; right after it a List
// fills the view, and Filled says so.
func TestRefresherFillsAfterSubscription(t *testing.T) {
	v := view.New(view.Options{MaxAge: time.Hour})
	f := &fakeLister{}
	r := startRefresher(t, v, f, time.Hour)
	select {
	case res := <-f.lists:
		t.Fatalf("listed before any subscription: %+v", res)
	case <-time.After(50 * time.Millisecond):
	}
	r.Subscribed()
	if res := nextList(t, f); res.Err != nil || res.Pages != 1 || res.Bundles != 1 {
		t.Fatalf("list %+v, want one page of one bundle", res)
	}
	<-r.Filled()
	if _, ok := v.Lookup(consumer, name); !ok {
		t.Fatal("the listed bundle missed")
	}
}

// A resubscription drops the view and is followed by a List that fills it
// again; a failed List is retried until one succeeds.
func TestRefresherRelistsAfterResubscriptionAndRetries(t *testing.T) {
	v := view.New(view.Options{MaxAge: time.Hour})
	f := &fakeLister{}
	r := startRefresher(t, v, f, time.Hour)
	r.Subscribed()
	nextList(t, f)
	<-r.Filled()
	f.mu.Lock()
	f.fail = 2
	f.mu.Unlock()
	r.Subscribed() // as the stream reconnecting: drops every entry
	for range 2 {
		if res := nextList(t, f); res.Err == nil {
			t.Fatalf("list %+v, want the failure", res)
		}
	}
	if _, ok := v.Lookup(consumer, name); ok {
		t.Fatal("hit before a List after the resubscription succeeded")
	}
	if res := nextList(t, f); res.Err != nil {
		t.Fatalf("list %+v after the failures", res)
	}
	if _, ok := v.Lookup(consumer, name); !ok {
		t.Fatal("the bundle missed after the List following the resubscription")
	}
}

// After the first List, one follows every Every.
func TestRefresherListsEvery(t *testing.T) {
	v := view.New(view.Options{MaxAge: time.Hour, Synced: true})
	f := &fakeLister{}
	startRefresher(t, v, f, time.Millisecond)
	for range 3 {
		if res := nextList(t, f); res.Err != nil {
			t.Fatal(res.Err)
		}
	}
}

// Every defaults to three quarters of MaxAge: one List per Every is the
// view's whole steady cost, and pages trusted from their own request keep
// entries fresh across it.
func TestRefresherEveryDefaultsToThreeQuartersOfMaxAge(t *testing.T) {
	v := view.New(view.Options{MaxAge: 10 * time.Minute})
	if got := view.NewRefresher(v, view.RefresherOptions{}).Every(); got != 7*time.Minute+30*time.Second {
		t.Fatalf("Every %v, want 7m30s", got)
	}
}
