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
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeList{bundles: names(tt.bundles), foreign: tt.foreign}
			pool := newListed(t, f)
			var got []string
			stats, err := pool.List(t.Context(), tt.size, func(keys []adapter.BundleKey, works []*workv1.ManifestWork) error {
				for i, k := range keys {
					if works[i].Name != k.Name || works[i].Generation != 3 {
						t.Errorf("key %v with work %s generation %d", k, works[i].Name, works[i].Generation)
					}
					got = append(got, k.Consumer+"/"+k.Name)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, f.bundles) {
				t.Errorf("listed %v, want %v", got, f.bundles)
			}
			want := ListStats{Pages: tt.wantPages, Bundles: tt.bundles, Skipped: tt.wantSkipped}
			if stats != want {
				t.Errorf("stats %+v, want %+v", stats, want)
			}
			if len(f.requests) != tt.wantPages {
				t.Errorf("%d requests, want %d", len(f.requests), tt.wantPages)
			}
			for i, q := range f.requests {
				for _, part := range []string{"search=source+%3D+%27src%27", "orderBy=id", "page=" + strconv.Itoa(i+1), tt.wantRequestSize} {
					if !strings.Contains(q, part) {
						t.Errorf("request %d %s lacks %s", i+1, q, part)
					}
				}
			}
		})
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
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeList{bundles: names(30), mode: tt.mode}
			pool := newListed(t, f)
			_, err := pool.List(t.Context(), 10, func([]adapter.BundleKey, []*workv1.ManifestWork) error { return tt.pageErr })
			if !errors.Is(err, tt.want) {
				t.Fatalf("err %v, want %v", err, tt.want)
			}
			if len(f.requests) != tt.wantRequests {
				t.Errorf("%d requests, want %d", len(f.requests), tt.wantRequests)
			}
		})
	}
}

// A source id that would end the search's quoted string is refused
// before any request.
func TestListRefusesUnsearchableSource(t *testing.T) {
	f := &fakeList{}
	pool := newListed(t, f)
	pool.clients[0].opts.SourceID = "it's"
	if _, err := pool.List(t.Context(), 10, func([]adapter.BundleKey, []*workv1.ManifestWork) error { return nil }); !errors.Is(err, adapter.ErrInvalid) {
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
