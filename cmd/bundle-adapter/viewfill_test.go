package main

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bundle-adapter/bundle-adapter/config"
	"github.com/bundle-adapter/bundle-adapter/maestroclient"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/view"
)

// With the view enabled newMaestro returns a refresher whose Lists go
// through the pool's REST reader, list_page_size bundles a request, and
// are reported to listed; with the view off there is neither view nor
// refresher.
func TestNewMaestroViewRefresher(t *testing.T) {
	var mu sync.Mutex
	var queries []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		queries = append(queries, r.URL.RawQuery)
		mu.Unlock()
		w.Write([]byte(`{"kind":"ResourceBundleList","page":1,"size":0,"total":0,"items":[]}`))
	}))
	defer srv.Close()
	opts := maestroclient.Options{GRPCAddress: "127.0.0.1:1", GRPC: maestroclient.TLSOptions{Insecure: true},
		HTTPURL: srv.URL, HTTP: maestroclient.TLSOptions{Insecure: true}, SourceID: "src",
		Retry: maestroclient.RetryOptions{Attempts: 1}, Logger: quietLog()}

	pool, _, v, r, err := newMaestro(t.Context(), opts, config.MaestroView{}, nil, quietLog())
	if err != nil {
		t.Fatal(err)
	}
	pool.Close()
	if v != nil || r != nil {
		t.Fatalf("view off: view %v, refresher %v", v, r)
	}

	results := make(chan view.RefreshResult, 10)
	pool, _, v, r, err = newMaestro(t.Context(), opts, config.MaestroView{Enabled: true, ListPageSize: 42},
		func(res view.RefreshResult) { results <- res }, quietLog())
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if v == nil || r == nil {
		t.Fatal("view on: no view or no refresher")
	}
	stop := runRefresher(t.Context(), r)
	defer stop()
	r.Subscribed() // as the status stream would
	select {
	case <-r.Filled():
	case <-time.After(10 * time.Second):
		t.Fatal("the view was not filled")
	}
	if res := <-results; res.Err != nil || res.Pages != 1 {
		t.Errorf("listed %+v, want one page", res)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(queries) == 0 || !strings.Contains(queries[0], "size=42") || !strings.Contains(queries[0], "search=source") {
		t.Errorf("list requests %v, want size=42 searched by source", queries)
	}
}

// serve waits for the first List at most min(60s, max_age).
func TestViewFillWait(t *testing.T) {
	for _, tt := range []struct{ maxAge, want time.Duration }{
		{0, time.Minute}, {5 * time.Minute, time.Minute}, {30 * time.Second, 30 * time.Second},
	} {
		if got := viewFillWait(tt.maxAge); got != tt.want {
			t.Errorf("viewFillWait(%v) = %v, want %v", tt.maxAge, got, tt.want)
		}
	}
}

// waitViewFilled returns when the view is filled; past its timeout it
// returns anyway with a warning. /readyz's bundle_view check fails until
// serve consumes.
func TestWaitViewFilledAndGate(t *testing.T) {
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	filled := make(chan struct{})
	close(filled)
	waitViewFilled(context.Background(), filled, time.Hour, log)
	if !strings.Contains(logs.String(), "bundle view filled") {
		t.Errorf("filled: logged %q", logs.String())
	}
	logs.Reset()
	waitViewFilled(context.Background(), make(chan struct{}), time.Millisecond, log)
	if !strings.Contains(logs.String(), "level=WARN") {
		t.Errorf("timed out: logged %q, want a warning", logs.String())
	}

	open := make(chan struct{})
	check := gateCheck(open)
	if check(context.Background()) == nil {
		t.Error("bundle_view ready before serve consumes")
	}
	close(open)
	if err := check(context.Background()); err != nil {
		t.Errorf("bundle_view not ready once serve consumes: %v", err)
	}
}
