package hyperfleetapi

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

func TestResolvePath(t *testing.T) {
	tests := []struct{ version, in, want string }{
		{"v1", "/clusters/c1", "/api/hyperfleet/v1/clusters/c1"},
		{"v2", "clusters/c1/statuses", "/api/hyperfleet/v2/clusters/c1/statuses"},
		{"", "/clusters/c1", "/api/hyperfleet/v1/clusters/c1"},
		{"v1", "/api/hyperfleet/v1/clusters/c1", "/api/hyperfleet/v1/clusters/c1"},
		{"v1", "http://other:9000/x", "http://other:9000/x"},
	}
	for _, tt := range tests {
		if got := ResolvePath(tt.version, tt.in); got != tt.want {
			t.Errorf("ResolvePath(%q, %q) = %q, want %q", tt.version, tt.in, got, tt.want)
		}
	}
}

// Transient answers are retried up to the attempt limit; the last answer is
// returned whatever its status.
func TestRetriesTransientAnswers(t *testing.T) {
	tests := []struct {
		name     string
		statuses []int
		attempts int
		want     int
		calls    int32
	}{
		{"5xx then ok", []int{503, 502, 200}, 3, 200, 3},
		{"gives up after attempts", []int{503, 503, 503, 200}, 3, 503, 3},
		{"4xx is not retried", []int{404, 200}, 3, 404, 1},
		{"429 is retried", []int{429, 200}, 3, 200, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var n atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				i := n.Add(1) - 1
				w.WriteHeader(tt.statuses[i])
			}))
			defer srv.Close()
			c := New(Options{BaseURL: srv.URL, RetryAttempts: tt.attempts, BaseDelay: time.Millisecond})
			resp, err := c.Do(context.Background(), adapter.APIRequest{Method: "GET", URL: "/clusters/c1"})
			if err != nil || resp.Status != tt.want || n.Load() != tt.calls {
				t.Errorf("status %d err %v after %d calls; want %d after %d", resp.Status, err, n.Load(), tt.want, tt.calls)
			}
		})
	}
}

func TestUnreachableIsATransportError(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close()
	c := New(Options{BaseURL: srv.URL, RetryAttempts: 2, BaseDelay: time.Millisecond})
	_, err := c.Do(context.Background(), adapter.APIRequest{Method: "GET", URL: "/clusters/c1"})
	var te *adapter.TransportError
	if !errors.As(err, &te) {
		t.Fatalf("err = %v, want *adapter.TransportError", err)
	}
}

// The bearer token is read from its file and read again when it rotates.
func TestTokenFileRotation(t *testing.T) {
	var got atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.Store(r.Header.Get("Authorization"))
	}))
	defer srv.Close()
	path := filepath.Join(t.TempDir(), "token")
	os.WriteFile(path, []byte("first\n"), 0o600)
	c := New(Options{BaseURL: srv.URL, TokenPath: path})
	do := func() string {
		if _, err := c.Do(context.Background(), adapter.APIRequest{Method: "GET", URL: "/x"}); err != nil {
			t.Fatal(err)
		}
		return got.Load().(string)
	}
	if h := do(); h != "Bearer first" {
		t.Errorf("Authorization = %q", h)
	}
	os.WriteFile(path, []byte("second-token"), 0o600)
	future := time.Now().Add(time.Minute)
	os.Chtimes(path, future, future)
	if h := do(); h != "Bearer second-token" {
		t.Errorf("after rotation Authorization = %q", h)
	}
	os.Remove(path)
	if _, err := c.Do(context.Background(), adapter.APIRequest{Method: "GET", URL: "/x"}); err == nil {
		t.Error("a missing token file must fail the request")
	}
}

// With token_cache_ttl the token read is used until the TTL passes, even
// when the file rotates meanwhile; then the rotated token is read.
func TestTokenCacheTTL(t *testing.T) {
	path := filepath.Join(t.TempDir(), "token")
	os.WriteFile(path, []byte("first"), 0o600)
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	tf := &tokenFile{path: path, ttl: 30 * time.Second, now: func() time.Time { return now }}
	steps := []struct {
		name    string
		advance time.Duration
		rewrite string
		want    string
	}{
		{"first read", 0, "", "first"},
		{"rotated within the TTL", 10 * time.Second, "second-token", "first"},
		{"TTL passed", 25 * time.Second, "", "second-token"},
	}
	for _, s := range steps {
		now = now.Add(s.advance)
		if s.rewrite != "" {
			os.WriteFile(path, []byte(s.rewrite), 0o600)
		}
		got, err := tf.read()
		if err != nil || got != s.want {
			t.Errorf("%s: token %q, %v; want %q", s.name, got, err, s.want)
		}
	}
}
