package maestroclient

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// TestMeasureWorstHostileList measures the worst List a hostile Maestro
// can still cause (docs/reliability.md, round 4): a first page counting
// maxListBundles and every page full of new bundles, so that no check
// stops it before the count's pages. It runs only with
// MAESTRO_LIST_MEASURE=1 (it takes tens of seconds); the page size is the
// smallest List uses, and the default one.
func TestMeasureWorstHostileList(t *testing.T) {
	if os.Getenv("MAESTRO_LIST_MEASURE") != "1" {
		t.Skip("set MAESTRO_LIST_MEASURE=1 to measure")
	}
	for _, size := range []int{MinListPageSize, DefaultListPageSize} {
		f := &fakeList{mode: "max-count"}
		pool := newListed(t, f)
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		start := time.Now()
		stats, err := pool.List(t.Context(), size, func([]adapter.BundleKey, []*workv1.ManifestWork, time.Time) error { return nil })
		took := time.Since(start)
		runtime.ReadMemStats(&after)
		if !errors.Is(err, adapter.ErrInvalid) && err != nil {
			t.Fatalf("size %d: %v", size, err)
		}
		t.Logf("size %d: %d requests, %d bundles handed on, %v, %d MB allocated in all, err=%v",
			size, len(f.requests), stats.Bundles, took.Round(time.Millisecond), (after.TotalAlloc-before.TotalAlloc)>>20, err)
		if len(f.requests) > maxListBundles/size+listSlackPages {
			t.Errorf("size %d: %d requests, more than the count allows", size, len(f.requests))
		}
	}
}

// hostileList answers page p (from 1) with the bundle numbers pages(p)
// returns and the count total(p).
type hostileList struct {
	c        *Client
	pages    func(p int) []int
	total    func(p int) int
	requests atomic.Int64
}

func (h *hostileList) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.requests.Add(1)
	page, _ := strconv.Atoi(r.URL.Query().Get("page"))
	var items []string
	for _, i := range h.pages(page) {
		items = append(items, fmt.Sprintf(`{"id":%q,"consumer_name":"c1","version":1,"metadata":{"name":"n%d"},"manifests":[]}`, h.c.bundleID("c1", fmt.Sprint("n", i)), i))
	}
	fmt.Fprintf(w, `{"kind":"ResourceBundleList","page":%d,"size":%d,"total":%d,"items":[%s]}`, page, len(items), h.total(page), strings.Join(items, ","))
}

func seq(from, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = from + i
	}
	return out
}

// The round-4 hostile variants on List paging (issue 43): each ends within
// the requests the first count allows (plus one), failing with ErrInvalid
// where the paging is provably wrong.
func TestListHostileVariants(t *testing.T) {
	const size = 10
	million := func(int) int { return maxListBundles }
	tests := []struct {
		name         string
		pages        func(p int) []int
		total        func(p int) int
		wantErr      bool
		wantRequests int
	}{
		{"A, B, C, A", func(p int) []int { return seq(((p-1)%3)*size, size) }, million, true, 4},
		{"A, B, A with a count of 30", func(p int) []int { return seq(((p-1)%2)*size, size) }, func(int) int { return 30 }, true, 3},
		// Held, bounded by the count; 14 bundles for 50 counted is not an
		// error (offset paging under deletions overlaps too).
		{"pages shifted by one, every id seen before but one", func(p int) []int { return seq(p-1, size) }, func(int) int { return 50 }, false, 5},
		{"the same id ten times a page", func(p int) []int { return []int{1, 1, 1, 1, 1, 1, 1, 1, 1, 1} }, million, true, 2},
		{"a count growing every page", func(p int) []int { return seq((p-1)*size, size) }, func(p int) int { return 20 * p }, true, 3},
		{"a count of 0 with a full page", func(p int) []int { return seq((p-1)*size, size) }, func(int) int { return 0 }, false, 1},
		{"a negative count", func(p int) []int { return seq((p-1)*size, size) }, func(int) int { return -5 }, false, 1},
		{"a count of maxListBundles+1", func(p int) []int { return seq((p-1)*size, size) }, func(int) int { return maxListBundles + 1 }, true, 1},
		{"a count of maxint", func(p int) []int { return seq((p-1)*size, size) }, func(int) int { return math.MaxInt }, true, 1},
		{"empty pages with a million counted", func(p int) []int { return nil }, million, false, 1},
		{"a short page ends it", func(p int) []int { return seq((p-1)*size, size-p+1) }, million, false, 2},
	}
	for _, tt := range tests {
		for _, ahead := range []int{1, listAhead} {
			t.Run(fmt.Sprintf("%s, %d at once", tt.name, ahead), func(t *testing.T) {
				h := &hostileList{pages: tt.pages, total: tt.total}
				srv := httptest.NewServer(h)
				defer srv.Close()
				pool, err := NewPool(t.Context(), Options{GRPC: TLSOptions{Insecure: true}, HTTP: TLSOptions{Insecure: true},
					HTTPURL: srv.URL, SourceID: "src", Retry: RetryOptions{Attempts: 1}})
				if err != nil {
					t.Fatal(err)
				}
				defer pool.Close()
				h.c = pool.clients[0]
				_, err = pool.clients[0].list(t.Context(), size, func([]adapter.BundleKey, []*workv1.ManifestWork, time.Time) error { return nil }, ahead)
				if tt.wantErr != errors.Is(err, adapter.ErrInvalid) {
					t.Errorf("err %v, want ErrInvalid %v", err, tt.wantErr)
				}
				checkListRequests(t, int(h.requests.Load()), tt.wantRequests, ahead)
			})
		}
	}
}
