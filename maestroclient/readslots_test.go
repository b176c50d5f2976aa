package maestroclient

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The reads of every Client of a Pool share MaxConcurrentReads slots: a
// server that holds each read sees at most that many at once, and all of
// them are served.
func TestPoolBoundsReadsInFlight(t *testing.T) {
	for _, limit := range []int{1, 3} {
		var inFlight, peak, served atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			n := inFlight.Add(1)
			defer inFlight.Add(-1)
			for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
			}
			time.Sleep(20 * time.Millisecond) // long enough for the others to pile up
			served.Add(1)
			w.Write([]byte(bareBundle))
		}))
		pool, err := NewPool(t.Context(), Options{GRPC: TLSOptions{Insecure: true}, HTTP: TLSOptions{Insecure: true},
			HTTPURL: srv.URL, Clients: 4, MaxConcurrentReads: limit})
		if err != nil {
			t.Fatal(err)
		}
		const reads = 12
		var wg sync.WaitGroup
		for i := range reads {
			wg.Go(func() {
				if _, err := pool.Get(t.Context(), "c", string(rune('a'+i))); err != nil {
					t.Errorf("read %d: %v", i, err)
				}
			})
		}
		wg.Wait()
		pool.Close()
		srv.Close()
		if got := peak.Load(); got != int32(limit) {
			t.Errorf("limit %d: %d reads in flight at the peak, want exactly the limit", limit, got)
		}
		if served.Load() != reads {
			t.Errorf("limit %d: %d of %d reads served", limit, served.Load(), reads)
		}
	}
}
