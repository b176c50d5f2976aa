package maestroclient_test

import (
	"context"
	"fmt"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/internal/stacktest"
	"github.com/bundle-adapter/bundle-adapter/maestroclient"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/view"
)

// A replica that starts with bundles already in Maestro (a restart):
// the status stream's first subscription has the refresher List this
// source's bundles, which fills the view in bundles/page-size REST
// requests and no read per bundle; every listed bundle is then a hit, but
// the one being deleted.
func TestViewFilledByListRealMaestro(t *testing.T) {
	s := requireServer(t)
	ctx := t.Context()
	source := unique("view-list")
	consumers := []string{register(t, s, "vl"), register(t, s, "vl")}
	writer := newClient(t, s, func(o *maestroclient.Options) { o.SourceID = source })
	const n = 15
	for i := range n {
		if _, err := writer.Create(ctx, consumers[i%2], bundle(fmt.Sprintf("b%02d", i), "v1"), adapter.Unread); err != nil {
			t.Fatalf("Create: %v", err)
		}
	}
	if err := writer.Delete(ctx, consumers[1], "b01"); err != nil { // no agent: stays deleting
		t.Fatalf("Delete: %v", err)
	}

	v, _, requests := listedView(t, s, source, view.RefresherOptions{})
	if got := requests.Load(); got != 2 {
		t.Errorf("%d REST requests to fill the view of %d bundles, want 2 pages of 10", got, n)
	}
	for i := range n {
		consumer, name := consumers[i%2], fmt.Sprintf("b%02d", i)
		_, hit := v.Lookup(consumer, name)
		if want := name != "b01"; hit != want {
			t.Errorf("%s/%s: hit %v, want %v", consumer, name, hit, want)
		}
	}
}

// The round after creates no agent reports, on the real server (issue 47):
// the refresher Lists once this process's creates are unreported past
// CreateGrace, so every created bundle gets its entry from that List, in
// one REST request a page (2 pages of 10 for 12 bundles) instead of a read
// a bundle, and each entry is exactly what a read returns. No agent runs
// for the consumer, so the stream brings nothing.
func TestUnreportedCreatesListedRealMaestro(t *testing.T) {
	s := requireServer(t)
	ctx := t.Context()
	source := unique("view-unlisted")
	consumer := register(t, s, "vu")
	var lists atomic.Int64
	v, c, requests := listedView(t, s, source, view.RefresherOptions{CreateGrace: 500 * time.Millisecond,
		Listed: func(view.RefreshResult) { lists.Add(1) }})

	m := view.Maestro(c, v)
	before, listsBefore := requests.Load(), lists.Load()
	const n = 12
	for i := range n {
		if _, err := m.Create(ctx, consumer, bundle(fmt.Sprintf("u%02d", i), "v1"), adapter.ReadAbsent); err != nil {
			t.Fatalf("Create: %v", err)
		}
	}
	eventually(t, 30*time.Second, "an entry for every create, from a List", func() error {
		for i := range n {
			if _, ok := v.Lookup(consumer, fmt.Sprintf("u%02d", i)); !ok {
				return fmt.Errorf("u%02d: no entry (%d Lists since the creates)", i, lists.Load()-listsBefore)
			}
		}
		return nil
	})
	if got := requests.Load() - before; got != 2 {
		t.Errorf("%d REST requests from the creates to their entries, want 2 (one List of 2 pages of 10)", got)
	}
	for i := range n {
		name := fmt.Sprintf("u%02d", i)
		hit, _ := v.Lookup(consumer, name)
		read, err := c.Get(ctx, consumer, name)
		if err != nil {
			t.Fatal(err)
		}
		if g, r := stacktest.JSONValue(t, hit), stacktest.JSONValue(t, read); !reflect.DeepEqual(g, r) {
			t.Errorf("%s: the entry made by the List is not the read:\nentry %v\nread  %v", name, g, r)
		}
	}
	if u := v.UnlistedCreates(0); u != 0 {
		t.Errorf("%d creates still unlisted after the List", u)
	}
}

// listedView starts a view kept by a refresher that lists source's
// bundles 10 a page through a client whose REST requests are counted
// (opts' List and Logger are set here), and waits until the first List
// after the subscription filled it.
func listedView(t *testing.T, s server, source string, opts view.RefresherOptions) (*view.View, *maestroclient.Client, *atomic.Int64) {
	t.Helper()
	restURL, requests := restCounter(t, s)
	v := view.New(view.Options{MaxAge: time.Minute})
	var c *maestroclient.Client
	opts.Logger = testLogger(t)
	opts.List = func(ctx context.Context, page func([]adapter.BundleKey, []*workv1.ManifestWork, time.Time) error) error {
		_, err := c.List(ctx, 10, page)
		return err
	}
	r := view.NewRefresher(v, opts)
	c = newClient(t, s, func(o *maestroclient.Options) { o.SourceID = source; o.HTTPURL = restURL; o.Status = r })
	runCtx, stop := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { r.Run(runCtx); close(done) }()
	t.Cleanup(func() { stop(); <-done })
	select {
	case <-r.Filled():
	case <-time.After(30 * time.Second):
		t.Fatal("the view was not filled by a List after the subscription")
	}
	return v, c, requests
}
