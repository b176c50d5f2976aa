// Package health serves /healthz, /readyz, /metrics and any extra route
// registered with Handle (serve adds /config).
//
// /healthz answers 200 while the process serves HTTP. /readyz answers 200
// only when every readiness check passes (subscribed to the broker, Maestro
// and the HyperFleet API answering) and 503 with the failing checks
// otherwise. The checks run side by side on a context of their own, never
// the probe's, each bounded by Options.Timeout; probes that arrive while
// they run wait for that one run, and its result answers probes for
// Options.CacheFor (a failing result for Options.FailedFor, shorter: a
// process that just started is not held unready by its first look), so
// probes never hammer the dependencies and a probe whose client gave up
// changes nothing.
package health

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	neturl "net/url"
	"sync"
	"time"
)

// Check reports nil when its dependency is usable.
type Check func(ctx context.Context) error

// Handler serves the probes and metrics.
type Handler struct {
	checks    map[string]Check
	metrics   http.Handler
	cacheFor  time.Duration
	failedFor time.Duration
	timeout   time.Duration

	extra map[string]http.Handler

	mu      sync.Mutex
	checked time.Time       // when last was stored; zero: never
	last    []string        // the failing checks of the last flight
	flight  *flight         // the checks in progress, or nil
	running map[string]bool // checks whose last call has not returned
}

// Handle serves h at path too. Call it before the handler serves.
func (h *Handler) Handle(path string, handler http.Handler) {
	if h.extra == nil {
		h.extra = map[string]http.Handler{}
	}
	h.extra[path] = handler
}

// Options tune a Handler; zero fields take the defaults.
type Options struct {
	// CacheFor is how long a passing result answers probes (default 5s).
	CacheFor time.Duration
	// FailedFor is how long a failing result answers probes (default 1s,
	// at most CacheFor): the checks run at most once per FailedFor while
	// failing, and readiness shows within FailedFor of the dependencies
	// answering (a 5 s cache of the first, failing, look held a restarted
	// adapter unready for 5 s: issue 47).
	FailedFor time.Duration
	// Timeout bounds each check (default 2s): its context ends then, and a
	// check that has not returned by then is reported failed.
	Timeout time.Duration
}

// New returns a handler serving checks; metrics may be nil.
func New(checks map[string]Check, metrics http.Handler, o Options) *Handler {
	if o.CacheFor <= 0 {
		o.CacheFor = 5 * time.Second
	}
	if o.FailedFor <= 0 {
		o.FailedFor = time.Second
	}
	o.FailedFor = min(o.FailedFor, o.CacheFor)
	if o.Timeout <= 0 {
		o.Timeout = 2 * time.Second
	}
	return &Handler{checks: checks, metrics: metrics, cacheFor: o.CacheFor, failedFor: o.FailedFor, timeout: o.Timeout, running: map[string]bool{}}
}

// ServeHTTP routes /healthz, /readyz and /metrics.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/healthz":
		fmt.Fprintln(w, "ok")
	case "/readyz":
		h.ready(w, r)
	case "/metrics":
		if h.metrics == nil {
			http.NotFound(w, r)
			return
		}
		h.metrics.ServeHTTP(w, r)
	default:
		if x, ok := h.extra[r.URL.Path]; ok {
			x.ServeHTTP(w, r)
			return
		}
		http.NotFound(w, r)
	}
}

// HTTPCheck passes when url answers with any status below 500. Its errors
// never show the URL (/readyz is unauthenticated and a base URL can carry
// a password, also where a malformed URL puts it in the host or path):
// they say what happened, and the check's name says which dependency.
func HTTPCheck(client *http.Client, url string) Check {
	return func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return errors.New("the URL does not parse (not shown: it may hold a password)")
		}
		resp, err := client.Do(req)
		if err != nil {
			var uerr *neturl.Error
			if errors.As(err, &uerr) {
				err = uerr.Err
			}
			return fmt.Errorf("GET failed: %w", err)
		}
		resp.Body.Close()
		if resp.StatusCode >= 500 {
			return fmt.Errorf("GET answered %d", resp.StatusCode)
		}
		return nil
	}
}
