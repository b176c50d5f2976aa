// Package health serves /healthz, /readyz, /metrics and any extra route
// registered with Handle (serve adds /config).
//
// /healthz answers 200 while the process serves HTTP. /readyz answers 200
// only when every readiness check passes (subscribed to the broker, Maestro
// and the HyperFleet API answering) and 503 with the failing checks
// otherwise. Check results are cached for CacheFor so probes never hammer
// the dependencies.
package health

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	neturl "net/url"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/bundle-adapter/bundle-adapter/internal/secret"
)

// Check reports nil when its dependency is usable.
type Check func(ctx context.Context) error

// Handler serves the probes and metrics.
type Handler struct {
	checks   map[string]Check
	metrics  http.Handler
	cacheFor time.Duration
	timeout  time.Duration

	extra map[string]http.Handler

	mu      sync.Mutex
	checked time.Time
	last    map[string]error
}

// Handle serves h at path too. Call it before the handler serves.
func (h *Handler) Handle(path string, handler http.Handler) {
	if h.extra == nil {
		h.extra = map[string]http.Handler{}
	}
	h.extra[path] = handler
}

// New returns a handler; metrics may be nil. Checks run at most every
// cacheFor (default 5s), each bounded by 2s.
func New(checks map[string]Check, metrics http.Handler, cacheFor time.Duration) *Handler {
	if cacheFor <= 0 {
		cacheFor = 5 * time.Second
	}
	return &Handler{checks: checks, metrics: metrics, cacheFor: cacheFor, timeout: 2 * time.Second}
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

func (h *Handler) ready(w http.ResponseWriter, r *http.Request) {
	failed := h.run(r.Context())
	if len(failed) == 0 {
		fmt.Fprintln(w, "ready")
		return
	}
	w.WriteHeader(http.StatusServiceUnavailable)
	fmt.Fprintln(w, "not ready:")
	for _, f := range failed {
		fmt.Fprintln(w, "  "+f)
	}
}

// run returns the failing checks as "name: error", sorted.
func (h *Handler) run(ctx context.Context) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.last == nil || time.Since(h.checked) > h.cacheFor {
		h.last = map[string]error{}
		for name, c := range h.checks {
			cctx, cancel := context.WithTimeout(ctx, h.timeout)
			h.last[name] = c(cctx)
			cancel()
		}
		h.checked = time.Now()
	}
	var failed []string
	for name, err := range h.last {
		if err != nil {
			failed = append(failed, name+": "+strings.TrimSpace(err.Error()))
		}
	}
	sort.Strings(failed)
	return failed
}

// HTTPCheck passes when url answers with any status below 500. Its errors,
// which /readyz serves to anyone, name url redacted (secret.RedactURL):
// never a password, a token written as the user name or a token in the
// query.
func HTTPCheck(client *http.Client, url string) Check {
	shown := secret.RedactURL(url)
	return func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return fmt.Errorf("GET %s: cannot build the request", shown)
		}
		resp, err := client.Do(req)
		if err != nil {
			var ue *neturl.Error
			if errors.As(err, &ue) {
				return fmt.Errorf("%s %q: %w", ue.Op, shown, ue.Err)
			}
			return fmt.Errorf("GET %s: failed", shown)
		}
		resp.Body.Close()
		if resp.StatusCode >= 500 {
			return fmt.Errorf("%s answered %d", shown, resp.StatusCode)
		}
		return nil
	}
}
