package hyperfleetapi

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// default_headers go to the configured API only, never to another allowed
// origin nor through a redirect out of the API; a request's own header wins.
func TestDefaultHeaders(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]string{}
	rec := func(name string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			seen[name+" "+r.URL.Path] = r.Header.Get("X-Tenant") + "|" + r.Header.Get("X-Trace")
			mu.Unlock()
			w.Write([]byte(`{}`))
		}
	}
	other := httptest.NewServer(rec("other"))
	defer other.Close()
	apiRec := rec("api")
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/hyperfleet/v1/away" {
			http.Redirect(w, r, other.URL+"/redirected", http.StatusFound)
			return
		}
		apiRec(w, r)
	}))
	defer api.Close()
	c := New(Options{BaseURL: api.URL, AllowedOrigins: []string{other.URL},
		DefaultHeaders: map[string]string{"X-Tenant": "t1", "X-Trace": "default"}})
	for _, req := range []adapter.APIRequest{
		{Method: "GET", URL: "/clusters/c1"},
		{Method: "GET", URL: "/clusters/c2", Headers: map[string]string{"X-Trace": "own"}},
		{Method: "GET", URL: other.URL + "/direct"},
		{Method: "GET", URL: "/away"},
	} {
		if _, err := c.Do(context.Background(), req); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string]string{
		"api /api/hyperfleet/v1/clusters/c1": "t1|default",
		"api /api/hyperfleet/v1/clusters/c2": "t1|own",
		"other /direct":                      "|",
		"other /redirected":                  "|",
	}
	for k, v := range want {
		if seen[k] != v {
			t.Errorf("%s: headers %q, want %q (all: %v)", k, seen[k], v, seen)
		}
	}
}

// max_delay caps every retry delay, base_delay starts them.
func TestMaxDelayCapsRetryDelay(t *testing.T) {
	c := New(Options{BaseURL: "http://x", BaseDelay: time.Second, MaxDelay: 3 * time.Second})
	for attempt, want := range map[int]time.Duration{1: time.Second, 2: 2 * time.Second, 3: 3 * time.Second, 10: 3 * time.Second} {
		if got := c.delay(attempt); got != want {
			t.Errorf("delay(%d) = %v, want %v", attempt, got, want)
		}
	}
	if got := New(Options{BaseURL: "http://x", MaxDelay: time.Hour}).delay(20); got != MaxRetryDelay {
		t.Errorf("a max_delay above MaxRetryDelay must be capped: %v", got)
	}
}
