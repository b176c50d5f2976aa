package health

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"
)

// flight is one run of the checks; done is closed when failed is set.
type flight struct {
	done   chan struct{}
	failed []string
}

// ready answers /readyz: 200 when every check passed, 503 naming the
// failing ones, 503 too when the probe's client left before the checks
// finished (they finish anyway, and their result is kept).
func (h *Handler) ready(w http.ResponseWriter, r *http.Request) {
	failed, ok := h.status(r.Context())
	if !ok {
		http.Error(w, "not ready: the probe ended before the checks did", http.StatusServiceUnavailable)
		return
	}
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

// status returns the failing checks ("name: error", sorted): the cached
// result while fresh, else that of the run in flight, starting one when
// none is. ok is false when ctx ended first; the run goes on regardless.
func (h *Handler) status(ctx context.Context) (failed []string, ok bool) {
	h.mu.Lock()
	if !h.checked.IsZero() && time.Since(h.checked) <= h.freshFor() {
		failed = h.last
		h.mu.Unlock()
		return failed, true
	}
	f := h.flight
	if f == nil {
		f = &flight{done: make(chan struct{})}
		h.flight = f
		go h.fly(f)
	}
	h.mu.Unlock()
	select {
	case <-f.done:
		return f.failed, true
	case <-ctx.Done():
		return nil, false
	}
}

// freshFor is how long the cached result answers: a failing one for less
// time than a passing one. Called with h.mu held.
func (h *Handler) freshFor() time.Duration {
	if len(h.last) > 0 {
		return h.failedFor
	}
	return h.cacheFor
}

// fly runs the checks for f, caches the result and ends the flight.
func (h *Handler) fly(f *flight) {
	failed := h.runChecks()
	h.mu.Lock()
	h.last, h.checked, h.flight = failed, time.Now(), nil
	h.mu.Unlock()
	f.failed = failed
	close(f.done)
}

// minGrace is the least time a check gets, after its context ended, to
// return its own error.
const minGrace = 250 * time.Millisecond

// runChecks runs every check side by side on a context of its own bounded
// by h.timeout, and returns the failures. A check that has not returned a
// quarter of the timeout (at least minGrace) after its context ended (time
// for it to report its own error) is reported failed and left to return on its own; until
// it does, later runs report it failed without calling it again.
func (h *Handler) runChecks() []string {
	ctx, cancel := context.WithTimeout(context.Background(), h.timeout)
	defer cancel()
	type result struct {
		name string
		err  error
	}
	results := make(chan result, len(h.checks))
	pending := map[string]bool{}
	var failed []string
	for name, c := range h.checks {
		if !h.start(name) {
			failed = append(failed, name+": the previous check has not returned (over "+h.timeout.String()+")")
			continue
		}
		pending[name] = true
		go func() {
			err := call(ctx, c)
			h.finish(name) // before the result: the next run may call it again
			results <- result{name, err}
		}()
	}
	grace := time.NewTimer(h.timeout + max(h.timeout/4, minGrace))
	defer grace.Stop()
	for len(pending) > 0 {
		select {
		case r := <-results:
			delete(pending, r.name)
			if r.err != nil {
				failed = append(failed, r.name+": "+strings.TrimSpace(r.err.Error()))
			}
		case <-grace.C:
			for name := range pending {
				failed = append(failed, name+": no answer within "+h.timeout.String())
			}
			pending = nil
		}
	}
	sort.Strings(failed)
	return failed
}

// start marks the check name running; false when it already is.
func (h *Handler) start(name string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.running[name] {
		return false
	}
	h.running[name] = true
	return true
}

// finish marks the check name returned.
func (h *Handler) finish(name string) {
	h.mu.Lock()
	delete(h.running, name)
	h.mu.Unlock()
}

// call runs c, turning a panic into its error.
func call(ctx context.Context, c Check) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("check panicked: %v", p)
		}
	}()
	return c(ctx)
}
