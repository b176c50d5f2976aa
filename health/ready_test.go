package health

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// patience bounds every wait on an event in these tests: generous, so a
// loaded machine does not fail them.
const patience = 10 * time.Second

// healthy passes unless its context is done (as Maestro's and the API's
// checks do).
func healthy(ctx context.Context) error { return ctx.Err() }

// probe serves /readyz with ctx as the request's context.
func probe(h http.Handler, ctx context.Context) (int, string) {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/readyz", nil).WithContext(ctx))
	return rec.Code, rec.Body.String()
}

// probeWithin probes and fails the test when no answer comes within
// patience (the probe stays running in the background then).
func probeWithin(t *testing.T, h http.Handler) (int, string) {
	t.Helper()
	type answer struct {
		code int
		body string
	}
	done := make(chan answer, 1)
	go func() { c, b := probe(h, context.Background()); done <- answer{c, b} }()
	select {
	case a := <-done:
		return a.code, a.body
	case <-time.After(patience):
		t.Fatal("/readyz did not answer")
		return 0, ""
	}
}

// TestAbortedProbeDoesNotPoisonTheCache (issue 28, finding 6): a probe
// whose client went away (curl -m 0.1) made every probe answer 503
// "context canceled" for the cache's 5s. The checks run on their own
// context: the next probe answers what the dependencies say.
func TestAbortedProbeDoesNotPoisonTheCache(t *testing.T) {
	t.Run("cancelled before the probe", func(t *testing.T) {
		h := New(map[string]Check{"maestro": healthy, "broker": healthy}, nil, Options{CacheFor: time.Hour})
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		probe(h, ctx)
		if code, body := probeWithin(t, h); code != 200 {
			t.Errorf("after an aborted probe: %d %q, want 200", code, body)
		}
	})
	t.Run("cancelled while the check runs", func(t *testing.T) {
		started, release := make(chan struct{}), make(chan struct{})
		h := New(map[string]Check{"maestro": func(ctx context.Context) error {
			close(started)
			select {
			case <-release:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}}, nil, Options{CacheFor: time.Hour, Timeout: time.Hour})
		ctx, cancel := context.WithCancel(context.Background())
		aborted := make(chan struct{})
		go func() { probe(h, ctx); close(aborted) }()
		<-started
		cancel()
		select {
		case <-aborted:
		case <-time.After(patience):
			t.Fatal("an aborted probe kept waiting for the check")
		}
		close(release)
		if code, body := probeWithin(t, h); code != 200 {
			t.Errorf("after an aborted probe: %d %q, want 200", code, body)
		}
	})
}

// TestAbortedProbesInALoop: a hundred probes that give up at once, while
// the dependency answers slowly, start one check, not a hundred, and do
// not change its result.
func TestAbortedProbesInALoop(t *testing.T) {
	var calls atomic.Int32
	release := make(chan struct{})
	h := New(map[string]Check{"maestro": func(ctx context.Context) error {
		calls.Add(1)
		select {
		case <-release:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}}, nil, Options{CacheFor: time.Hour, Timeout: time.Hour})
	for range 100 {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		probe(h, ctx)
	}
	close(release)
	if code, body := probeWithin(t, h); code != 200 {
		t.Errorf("after 100 aborted probes: %d %q", code, body)
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("100 aborted probes and one more ran the check %d times, want 1", n)
	}
}

// TestConcurrentProbesShareOneCheck: probes arriving while a check is in
// flight wait for that check instead of starting their own, and all get
// its result (Maestro down: each does not add a request to Maestro).
func TestConcurrentProbesShareOneCheck(t *testing.T) {
	var calls atomic.Int32
	started, release := make(chan struct{}), make(chan struct{})
	h := New(map[string]Check{"maestro": func(context.Context) error {
		if calls.Add(1) == 1 {
			close(started)
		}
		<-release
		return io.ErrUnexpectedEOF
	}}, nil, Options{CacheFor: time.Hour, Timeout: time.Hour})
	var wg sync.WaitGroup
	codes := make(chan int, 50)
	for range 50 {
		wg.Go(func() { c, _ := probe(h, context.Background()); codes <- c })
	}
	<-started
	close(release)
	wg.Wait()
	close(codes)
	for c := range codes {
		if c != 503 {
			t.Errorf("a probe answered %d while Maestro failed", c)
		}
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("50 concurrent probes ran the check %d times, want 1", n)
	}
}

// TestChecksAreBoundedAndIsolated: a check that ignores its context, one
// that panics, and checks that must run side by side do not hang, crash
// or serialize the probe.
func TestChecksAreBoundedAndIsolated(t *testing.T) {
	t.Run("a check that never returns", func(t *testing.T) {
		var calls atomic.Int32
		h := New(map[string]Check{
			"stuck":  func(context.Context) error { calls.Add(1); select {} },
			"broker": healthy,
		}, nil, Options{CacheFor: time.Nanosecond, Timeout: 20 * time.Millisecond})
		for i := range 3 {
			code, body := probeWithin(t, h)
			if code != 503 || !strings.Contains(body, "stuck: ") || strings.Contains(body, "broker") {
				t.Errorf("probe %d: %d %q, want 503 naming only the stuck check", i, code, body)
			}
		}
		if n := calls.Load(); n != 1 {
			t.Errorf("a check still running was started %d times, want 1", n)
		}
	})
	t.Run("a check that ends with its context reports its own error", func(t *testing.T) {
		h := New(map[string]Check{"maestro": func(ctx context.Context) error {
			<-ctx.Done()
			return fmt.Errorf("dial maestro: %w", ctx.Err())
		}}, nil, Options{CacheFor: time.Nanosecond, Timeout: 20 * time.Millisecond})
		for range 5 {
			if code, body := probeWithin(t, h); code != 503 || !strings.Contains(body, "maestro: dial maestro: context deadline exceeded") {
				t.Fatalf("%d %q, want the check's own error", code, body)
			}
		}
	})
	t.Run("a check that panics", func(t *testing.T) {
		h := New(map[string]Check{"bad": func(context.Context) error { panic("boom") }}, nil, Options{})
		if code, body := probeWithin(t, h); code != 503 || !strings.Contains(body, "bad: ") {
			t.Errorf("%d %q, want 503 naming the check", code, body)
		}
	})
	t.Run("checks run side by side", func(t *testing.T) {
		a, b := make(chan struct{}), make(chan struct{})
		meet := func(mine, other chan struct{}) Check {
			return func(ctx context.Context) error {
				close(mine)
				select {
				case <-other:
					return nil
				case <-ctx.Done():
					return ctx.Err()
				}
			}
		}
		h := New(map[string]Check{"a": meet(a, b), "b": meet(b, a)}, nil, Options{Timeout: patience})
		if code, body := probeWithin(t, h); code != 200 {
			t.Errorf("%d %q: the checks ran one after the other", code, body)
		}
	})
}

// TestFailureCachedShorter (issue 47): a restarted adapter's first look
// fails (it is still subscribing) and was cached for CacheFor, so /readyz
// stayed 503 for 5 s after everything answered. A failing result answers
// for FailedFor only; a passing one for CacheFor; within FailedFor a
// failure is not checked again.
func TestFailureCachedShorter(t *testing.T) {
	const failedFor = 300 * time.Millisecond
	var calls, up atomic.Int32
	h := New(map[string]Check{"broker": func(context.Context) error {
		calls.Add(1)
		if up.Load() == 0 {
			return errors.New("not subscribed yet")
		}
		return nil
	}}, nil, Options{CacheFor: time.Hour, FailedFor: failedFor, Timeout: time.Hour})
	start := time.Now()
	if code, _ := probeWithin(t, h); code != 503 {
		t.Fatalf("first look: %d, want 503", code)
	}
	up.Store(1)
	code, _ := probeWithin(t, h)
	if time.Since(start) < failedFor && (code != 503 || calls.Load() != 1) {
		t.Errorf("within FailedFor: %d after %d checks, want the cached 503 and 1 check", code, calls.Load())
	}
	time.Sleep(failedFor)
	if code, body := probeWithin(t, h); code != 200 {
		t.Errorf("FailedFor after the failure: %d %q, want 200", code, body)
	}
	n := calls.Load()
	up.Store(0)
	time.Sleep(failedFor)
	if code, _ := probeWithin(t, h); code != 200 || calls.Load() != n {
		t.Errorf("a passing result within CacheFor: %d after %d checks, want the cached 200 and %d", code, calls.Load(), n)
	}
}

// FailedFor never outlasts CacheFor, and both default.
func TestCacheDefaults(t *testing.T) {
	for _, tt := range []struct {
		o                   Options
		wantCache, wantFail time.Duration
	}{
		{Options{}, 5 * time.Second, time.Second},
		{Options{CacheFor: 200 * time.Millisecond}, 200 * time.Millisecond, 200 * time.Millisecond},
		{Options{CacheFor: time.Minute, FailedFor: 2 * time.Second}, time.Minute, 2 * time.Second},
	} {
		h := New(nil, nil, tt.o)
		if h.cacheFor != tt.wantCache || h.failedFor != tt.wantFail {
			t.Errorf("%+v: cacheFor %s failedFor %s, want %s %s", tt.o, h.cacheFor, h.failedFor, tt.wantCache, tt.wantFail)
		}
	}
}
