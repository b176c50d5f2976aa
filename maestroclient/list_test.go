package maestroclient

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// fakeList answers Maestro's resource bundle list the way Maestro does
// (services.ListArguments: page from 1, size, items ordered as asked,
// total), for the bundles it holds; mode bends it.
type fakeList struct {
	mu       sync.Mutex
	bundles  []string // "consumer/name", listed in this order
	foreign  int      // items whose id is not this source's id of their name, first
	mode     string   // "", "ignore-page", "cycle", "never-ending", "inflated", "max-count", "huge-page", "503"
	requests []string
	c        *Client
}

func (f *fakeList) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = append(f.requests, r.URL.RawQuery)
	q := r.URL.Query()
	page, _ := strconv.Atoi(q.Get("page"))
	size, _ := strconv.Atoi(q.Get("size"))
	if f.mode == "503" {
		w.WriteHeader(503)
		w.Write([]byte(`{"reason":"down"}`))
		return
	}
	if f.mode == "ignore-page" {
		page = 1
	}
	if f.mode == "cycle" { // pages A, B, A, B, ... of a list counting a million
		page = (page-1)%2 + 1
	}
	all := make([]string, 0, f.foreign+len(f.bundles))
	for i := range f.foreign {
		all = append(all, fmt.Sprintf(`{"id":"foreign-%d","consumer_name":"c1","version":1,"metadata":{"name":"x%d"},"manifests":[]}`, i, i))
	}
	for _, b := range f.bundles {
		consumer, name, _ := strings.Cut(b, "/")
		all = append(all, fmt.Sprintf(`{"id":%q,"consumer_name":%q,"version":3,"metadata":{"name":%q,"namespace":%q},"manifests":[]}`,
			f.c.bundleID(consumer, name), consumer, name, consumer))
	}
	total := len(all)
	if f.mode == "cycle" {
		total = maxListBundles
	}
	if f.mode == "never-ending" || f.mode == "inflated" || f.mode == "max-count" { // every page full of new bundles, and more to come
		total = size * (page + 1)
		switch f.mode {
		case "inflated":
			total = 2 * maxListBundles
		case "max-count":
			total = maxListBundles
		}
		var items []string // only this page's items are made
		for i := (page - 1) * size; i < size*page; i++ {
			items = append(items, fmt.Sprintf(`{"id":%q,"consumer_name":"c1","version":1,"metadata":{"name":"n%d"},"manifests":[]}`, f.c.bundleID("c1", fmt.Sprint("n", i)), i))
		}
		fmt.Fprintf(w, `{"kind":"ResourceBundleList","page":%d,"size":%d,"total":%d,"items":[%s]}`, page, len(items), total, strings.Join(items, ","))
		return
	}
	lo, hi := min((page-1)*size, len(all)), min(page*size, len(all))
	items := all[lo:hi]
	if f.mode == "huge-page" {
		items = all
	}
	fmt.Fprintf(w, `{"kind":"ResourceBundleList","page":%d,"size":%d,"total":%d,"items":[%s]}`, page, len(items), total, strings.Join(items, ","))
}

func newListed(t *testing.T, f *fakeList) *Pool {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	pool, err := NewPool(t.Context(), Options{GRPC: TLSOptions{Insecure: true}, HTTP: TLSOptions{Insecure: true},
		HTTPURL: srv.URL, SourceID: "src", Retry: RetryOptions{Attempts: 1}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close() })
	f.c = pool.clients[0]
	return pool
}

func names(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("c%d/b%03d", i%3, i)
	}
	return out
}

// List pages through every bundle of this source, searched by source and
// ordered by id, size bundles a page, ending at the first short page; each
// page is handed on as it arrives, keyed by consumer and name.
func TestListPages(t *testing.T) {
	for _, tt := range []struct {
		name            string
		bundles, size   int
		foreign         int
		wantPages       int
		wantSkipped     int
		wantRequestSize string
	}{
		{"empty", 0, 10, 0, 1, 0, "size=10"},
		{"one short page", 7, 10, 0, 1, 0, "size=10"},
		{"exact pages: no empty last page", 30, 10, 0, 3, 0, "size=10"},
		{"pages and a rest", 25, 10, 0, 3, 0, "size=10"},
		{"size below the bound", 25, 1, 0, 3, 0, "size=10"},
		{"size above the bound", 25, 1_000_000, 0, 1, 0, "size=5000"},
		{"items of other ids are skipped", 12, 10, 3, 2, 3, "size=10"},
	} {
		for _, ahead := range []int{1, listAhead} {
			t.Run(fmt.Sprintf("%s, %d at once", tt.name, ahead), func(t *testing.T) {
				f := &fakeList{bundles: names(tt.bundles), foreign: tt.foreign}
				pool := newListed(t, f)
				var got []string
				stats, err := pool.clients[0].list(t.Context(), tt.size, func(keys []adapter.BundleKey, works []*workv1.ManifestWork, _ time.Time) error {
					for i, k := range keys {
						if works[i].Name != k.Name || works[i].Generation != 3 {
							t.Errorf("key %v with work %s generation %d", k, works[i].Name, works[i].Generation)
						}
						got = append(got, k.Consumer+"/"+k.Name)
					}
					return nil
				}, ahead)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, f.bundles) { // handed on in order, whatever order they were read in
					t.Errorf("listed %v, want %v", got, f.bundles)
				}
				want := ListStats{Pages: tt.wantPages, Bundles: tt.bundles, Skipped: tt.wantSkipped}
				if stats != want {
					t.Errorf("stats %+v, want %+v", stats, want)
				}
				if len(f.requests) != tt.wantPages {
					t.Errorf("%d requests, want %d", len(f.requests), tt.wantPages)
				}
				requested := map[string]bool{}
				for _, q := range f.requests {
					for _, part := range []string{"search=source+%3D+%27src%27", "orderBy=id", tt.wantRequestSize} {
						if !strings.Contains(q, part) {
							t.Errorf("request %s lacks %s", q, part)
						}
					}
					requested[q] = true
				}
				for i := range tt.wantPages {
					if !slices.ContainsFunc(f.requests, func(q string) bool { return strings.Contains(q, "page="+strconv.Itoa(i+1)+"&") }) {
						t.Errorf("page %d not requested: %v", i+1, f.requests)
					}
				}
				if len(requested) != len(f.requests) {
					t.Errorf("a page requested twice: %v", f.requests)
				}
				if ahead == 1 {
					for i, q := range f.requests {
						if !strings.Contains(q, "page="+strconv.Itoa(i+1)+"&") {
							t.Errorf("one at a time: request %d is %s", i+1, q)
						}
					}
				}
			})
		}
	}
}

// Paging that does not end stops with ErrInvalid: a server that answers
// the first page again, one whose pages never run out, or a page longer
// than asked; a failed page is classified like Get's failures, and a
// ListPage's error stops List with that error.
func TestListStops(t *testing.T) {
	stop := errors.New("stop")
	for _, tt := range []struct {
		name         string
		mode         string
		pageErr      error
		want         error
		wantRequests int
	}{
		{"repeated page", "ignore-page", nil, adapter.ErrInvalid, 2},
		{"never-ending paging", "never-ending", nil, adapter.ErrInvalid, 20/10 + listSlackPages}, // the first page says 20
		// Issue 43, finding 9: the repeat check compared with the page
		// before only, and a count of a million or more was followed to
		// the hard cap (100,000 requests at size 10).
		{"pages A, B, A, B", "cycle", nil, adapter.ErrInvalid, 3},
		{"a count over the bound", "inflated", nil, adapter.ErrInvalid, 1},
		{"page longer than asked", "huge-page", nil, adapter.ErrInvalid, 1},
		{"server unavailable", "503", nil, adapter.ErrUnavailable, 1},
		{"page callback fails", "", stop, stop, 1},
	} {
		for _, ahead := range []int{1, listAhead} {
			t.Run(fmt.Sprintf("%s, %d at once", tt.name, ahead), func(t *testing.T) {
				f := &fakeList{bundles: names(30), mode: tt.mode}
				pool := newListed(t, f)
				_, err := pool.clients[0].list(t.Context(), 10, func([]adapter.BundleKey, []*workv1.ManifestWork, time.Time) error { return tt.pageErr }, ahead)
				if !errors.Is(err, tt.want) {
					t.Fatalf("err %v, want %v", err, tt.want)
				}
				checkListRequests(t, f.requestCount(), tt.wantRequests, ahead)
			})
		}
	}
}

// checkListRequests checks the requests one List made: exactly want when
// it read one page at a time, else at least want and at most the pages
// read ahead of the last one more (fewer when the List ended first).
func checkListRequests(t *testing.T, got, want, ahead int) {
	t.Helper()
	if (ahead == 1 && got != want) || got < want || got > want+ahead-1 {
		t.Errorf("%d requests, want %d (%d at once: up to %d more)", got, want, ahead, ahead-1)
	}
}

func (f *fakeList) requestCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.requests)
}

// A source id that would end the search's quoted string is refused
// before any request.
func TestListRefusesUnsearchableSource(t *testing.T) {
	f := &fakeList{}
	pool := newListed(t, f)
	pool.clients[0].opts.SourceID = "it's"
	if _, err := pool.List(t.Context(), 10, func([]adapter.BundleKey, []*workv1.ManifestWork, time.Time) error { return nil }); !errors.Is(err, adapter.ErrInvalid) {
		t.Fatalf("err %v, want ErrInvalid", err)
	}
	if len(f.requests) != 0 {
		t.Errorf("%d requests, want none", len(f.requests))
	}
}

// A List page's body is bounded by the page size, and never past
// maxListPage (8 MiB a bundle times 500 would be 4 GB).
func TestListPageLimit(t *testing.T) {
	for _, tc := range []struct {
		size int
		want int64
	}{{1, 8 << 20}, {10, 80 << 20}, {16, 128 << 20}, {500, 128 << 20}, {5000, 128 << 20}} {
		if got := listPageLimit(tc.size); got != tc.want {
			t.Errorf("listPageLimit(%d) = %d, want %d", tc.size, got, tc.want)
		}
	}
}

// Once the first page has given the count, List reads listAhead pages at
// once, never more, and never more than the read slots
// (MaxConcurrentReads) allow.
func TestListReadsAhead(t *testing.T) {
	for _, tt := range []struct {
		name  string
		reads int // Options.MaxConcurrentReads
		want  int // pages read at once
	}{
		{"read slots to spare", 64, listAhead},
		{"two read slots", 2, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeList{bundles: names(100)}
			var mu sync.Mutex
			inflight, most := 0, 0
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				first := r.URL.Query().Get("page") == "1"
				mu.Lock()
				inflight++
				most = max(most, inflight)
				// Hold each page until as many as expected are read at
				// once (or 300 ms passed): more would show as most.
				deadline := time.Now().Add(300 * time.Millisecond)
				for !first && inflight < tt.want && time.Now().Before(deadline) {
					mu.Unlock()
					time.Sleep(time.Millisecond)
					mu.Lock()
				}
				mu.Unlock()
				if !first {
					time.Sleep(100 * time.Millisecond) // each page takes a while
				}
				f.ServeHTTP(w, r)
				mu.Lock()
				inflight--
				mu.Unlock()
			}))
			defer srv.Close()
			pool, err := NewPool(t.Context(), Options{GRPC: TLSOptions{Insecure: true}, HTTP: TLSOptions{Insecure: true},
				HTTPURL: srv.URL, SourceID: "src", Retry: RetryOptions{Attempts: 1}, MaxConcurrentReads: tt.reads})
			if err != nil {
				t.Fatal(err)
			}
			defer pool.Close()
			f.c = pool.clients[0]
			var got []string
			start, late := time.Now(), 0
			if _, err := pool.List(t.Context(), 10, func(keys []adapter.BundleKey, _ []*workv1.ManifestWork, requested time.Time) error {
				if requested.Before(start) || requested.After(time.Now()) {
					t.Errorf("a page requested at %v, not between the List's start and its hand-off", requested)
				}
				if time.Since(requested) >= 100*time.Millisecond {
					late++ // the server took 100 ms from its request on
				}
				for _, k := range keys {
					got = append(got, k.Consumer+"/"+k.Name)
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, f.bundles) {
				t.Errorf("listed %d bundles out of order or not all", len(got))
			}
			if most != tt.want {
				t.Errorf("%d pages read at once, want %d", most, tt.want)
			}
			if late != 9 {
				t.Errorf("%d of pages 2 to 10 handed on with the time their read began, want all", late)
			}
		})
	}
}
