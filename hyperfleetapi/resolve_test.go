package hyperfleetapi

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// recorder is a server that records the requests it gets.
type recorder struct {
	*httptest.Server
	mu   sync.Mutex
	seen []string // "escaped-path auth"
}

func newRecorder(t *testing.T) *recorder {
	r := &recorder{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.seen = append(r.seen, req.URL.EscapedPath()+" "+req.Header.Get("Authorization"))
		r.mu.Unlock()
		w.Write([]byte(`{}`))
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *recorder) requests() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.seen...)
}

func tokenFileFor(t *testing.T) string {
	p := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(p, []byte("tok-5ecret"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// A rendered URL that leaves the configured API is refused before anything
// is sent: another origin (the bearer token must never go there), ".."
// segments (plain or escaped), paths outside /api/hyperfleet/<version>,
// credentials, fragments, control characters. The refusal is permanent, not
// a transport failure that would be retried. URLs inside the API are sent
// with the token.
func TestURLsThatLeaveTheAPIAreRefused(t *testing.T) {
	api, elsewhere := newRecorder(t), newRecorder(t)
	elsewhereHost := strings.TrimPrefix(elsewhere.URL, "http://")
	tests := []struct {
		name string
		url  string
		want string // the request the API got; "" = refused, nothing sent anywhere
	}{
		{"relative", "/clusters/c1/statuses", "/api/hyperfleet/v1/clusters/c1/statuses Bearer tok-5ecret"},
		{"escaped segment", "/clusters/c1%23/statuses", "/api/hyperfleet/v1/clusters/c1%23/statuses Bearer tok-5ecret"},
		{"absolute on the API's origin", api.URL + "/api/hyperfleet/v1/clusters/c1", "/api/hyperfleet/v1/clusters/c1 Bearer tok-5ecret"},
		{"another host", elsewhere.URL + "/steal", ""},
		{"another host, https", "https://" + elsewhereHost + "/steal", ""},
		{"dot-dot segments", "/clusters/../../x", ""},
		{"dot-dot under /api/", "/api/hyperfleet/v1/../../../x", ""},
		{"escaped dot-dot", "/clusters/%2e%2e/%2e%2e/%2e%2e/x", ""},
		{"dot-dot escaped into one segment", "/clusters/..%2F..%2F..%2Fx/statuses", ""},
		{"API origin, outside the API", api.URL + "/metrics", ""},
		{"another API prefix", "/api/other/v1/x", ""},
		{"credentials", "http://u:p@" + strings.TrimPrefix(api.URL, "http://") + "/api/hyperfleet/v1/x", ""},
		{"fragment", "/clusters/c1#/statuses", ""},
		{"NUL byte", "/clusters/c1\x00/statuses", ""},
		{"empty segment", "/clusters//statuses", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(api.requests()) + len(elsewhere.requests())
			c := New(Options{BaseURL: api.URL, TokenPath: tokenFileFor(t), RetryAttempts: 3, BaseDelay: time.Millisecond})
			resp, err := c.Do(context.Background(), adapter.APIRequest{Method: "PUT", URL: tt.url, Body: []byte(`{}`)})
			got := append(api.requests(), elsewhere.requests()...)
			if tt.want != "" {
				if err != nil || resp.Status != 200 || len(got) != before+1 || got[len(got)-1] != tt.want {
					t.Fatalf("err %v, status %d, requests %q; want one request %q", err, resp.Status, got, tt.want)
				}
				return
			}
			if len(got) != before {
				t.Fatalf("a request was sent: %q", got[before:])
			}
			var te *adapter.TransportError
			if err == nil || errors.As(err, &te) {
				t.Fatalf("err = %v; want a refusal that is not a (retried) transport error", err)
			}
			if strings.Contains(err.Error(), "u:p@") {
				t.Errorf("the error echoes credentials: %v", err)
			}
			t.Logf("refused: %v", err)
		})
	}
}

// An origin listed in AllowedOrigins may be called with an absolute URL,
// but never gets the bearer token; its path is not confined to the API
// prefix.
func TestAllowedOriginGetsNoToken(t *testing.T) {
	api, other := newRecorder(t), newRecorder(t)
	c := New(Options{BaseURL: api.URL, TokenPath: tokenFileFor(t), AllowedOrigins: []string{other.URL}})
	resp, err := c.Do(context.Background(), adapter.APIRequest{Method: "GET", URL: other.URL + "/v2/things"})
	if err != nil || resp.Status != 200 {
		t.Fatalf("err %v status %d", err, resp.Status)
	}
	if got := other.requests(); len(got) != 1 || got[0] != "/v2/things " {
		t.Fatalf("allowed origin got %q, want one request without Authorization", got)
	}
	var refused *adapter.RefusedError
	_, err = c.Do(context.Background(), adapter.APIRequest{Method: "GET", URL: "http://127.0.0.2:1/x"})
	if !errors.As(err, &refused) {
		t.Fatalf("an origin not listed: err = %v, want *adapter.RefusedError", err)
	}
}

// A redirect never carries the bearer token out of the API: not to another
// origin, not to a path outside the API prefix on the same origin.
func TestRedirectOutOfTheAPIDropsToken(t *testing.T) {
	elsewhere := newRecorder(t)
	var api *recorder
	api = newRecorder(t)
	api.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		api.mu.Lock()
		api.seen = append(api.seen, r.URL.EscapedPath()+" "+r.Header.Get("Authorization"))
		api.mu.Unlock()
		switch r.URL.Path {
		case "/api/hyperfleet/v1/to-elsewhere":
			http.Redirect(w, r, strings.Replace(elsewhere.URL, "127.0.0.1", "localhost", 1)+"/steal", http.StatusFound)
		case "/api/hyperfleet/v1/to-other-host-same-ip":
			http.Redirect(w, r, elsewhere.URL+"/steal", http.StatusFound)
		case "/api/hyperfleet/v1/to-metrics":
			http.Redirect(w, r, "/metrics", http.StatusFound)
		case "/api/hyperfleet/v1/to-inside":
			http.Redirect(w, r, "/api/hyperfleet/v1/clusters/c1", http.StatusFound)
		default:
			w.Write([]byte(`{}`))
		}
	})
	c := New(Options{BaseURL: api.URL, TokenPath: tokenFileFor(t)})
	for _, path := range []string{"/to-elsewhere", "/to-other-host-same-ip", "/to-metrics", "/to-inside"} {
		if _, err := c.Do(context.Background(), adapter.APIRequest{Method: "GET", URL: path}); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	for _, r := range append(api.requests(), elsewhere.requests()...) {
		inside := strings.HasPrefix(r, "/api/hyperfleet/v1/")
		if hasToken := strings.HasSuffix(r, "Bearer tok-5ecret"); hasToken != inside {
			t.Errorf("request %q: token sent = %v, want %v", r, hasToken, inside)
		}
	}
	if len(elsewhere.requests()) == 0 {
		t.Error("the redirect was not followed at all: the test proves nothing")
	}
}

// A header value rendered with a CR, LF or NUL is refused, never sent.
func TestHeaderWithControlCharacterIsRefused(t *testing.T) {
	api := newRecorder(t)
	c := New(Options{BaseURL: api.URL})
	_, err := c.Do(context.Background(), adapter.APIRequest{Method: "GET", URL: "/x",
		Headers: map[string]string{"X-Name": "a\r\nX-Injected: 1"}})
	var refused *adapter.RefusedError
	if !errors.As(err, &refused) || len(api.requests()) != 0 {
		t.Fatalf("err = %v, requests %q; want a refusal and nothing sent", err, api.requests())
	}
}

// An unusable base URL is the configuration's fault, not the event's: the
// request fails as a (retried) transport error, as before, and is not a
// refusal that would dead-letter every event.
func TestUnusableBaseURLIsATransportError(t *testing.T) {
	for _, base := range []string{"", "not a url", "ftp://h"} {
		_, err := New(Options{BaseURL: base, RetryAttempts: 1}).Do(context.Background(), adapter.APIRequest{Method: "GET", URL: "/x"})
		var te *adapter.TransportError
		if !errors.As(err, &te) {
			t.Errorf("base %q: err = %v, want *adapter.TransportError", base, err)
		}
	}
}
