package hyperfleetapi

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// The bearer token never appears in any error, whatever goes wrong: the
// API refusing it, answering 5xx, being unreachable or too slow, redirecting
// in a loop, a token the HTTP client refuses to send (a newline inside), a
// token file that is missing or empty. The errors still say what happened.
func TestTokenNeverInErrors(t *testing.T) {
	const token = "s3cr3t-T0ken-7f1c9a"
	dir := t.TempDir()
	writeToken := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := writeToken("token", token+"\n")
	withNewline := writeToken("token-newline", token+"\nsecond-line-"+token)
	empty := writeToken("token-empty", "\n")

	var seen []string // Authorization headers the server received
	mux := http.NewServeMux()
	mux.HandleFunc("/api/hyperfleet/v1/refused", func(w http.ResponseWriter, r *http.Request) {
		seen = append(seen, r.Header.Get("Authorization"))
		http.Error(w, `{"code":"unauthorized","reason":"invalid bearer token"}`, http.StatusUnauthorized)
	})
	mux.HandleFunc("/api/hyperfleet/v1/broken", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "upstream failure", http.StatusBadGateway)
	})
	mux.HandleFunc("/api/hyperfleet/v1/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	})
	mux.HandleFunc("/api/hyperfleet/v1/loop", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Path, http.StatusFound)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()

	tests := []struct {
		name      string
		base      string
		tokenPath string
		url       string
		want      string // in the error or, for an answer, in the APIError
	}{
		{"refused", srv.URL, good, "/refused", "answered 401"},
		{"5xx", srv.URL, good, "/broken", "answered 502"},
		{"unreachable", closed.URL, good, "/clusters/c1", "HyperFleet API unreachable"},
		{"timeout", srv.URL, good, "/slow", "deadline exceeded"},
		{"redirect loop", srv.URL, good, "/loop", "redirects"},
		{"token the client refuses", srv.URL, withNewline, "/refused", `invalid header field value for "Authorization"`},
		{"empty token file", srv.URL, empty, "/refused", "is empty"},
		{"missing token file", srv.URL, filepath.Join(dir, "missing"), "/refused", "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := New(Options{BaseURL: tt.base, TokenPath: tt.tokenPath, Timeout: 200 * time.Millisecond, RetryAttempts: 2, BaseDelay: time.Millisecond})
			req := adapter.APIRequest{Method: "GET", URL: tt.url}
			resp, err := c.Do(context.Background(), req)
			text := ""
			if err != nil {
				text = err.Error()
			} else if resp.Status < 200 || resp.Status > 299 {
				text = (&adapter.APIError{Method: req.Method, URL: req.URL, Status: resp.Status, Body: string(resp.Body)}).Error()
			}
			if text == "" {
				t.Fatalf("no error and status %d", resp.Status)
			}
			t.Logf("error: %s", text)
			if strings.Contains(text, token) || strings.Contains(text, "s3cr3t") {
				t.Errorf("error leaks the token: %s", text)
			}
			if !strings.Contains(text, tt.want) {
				t.Errorf("error %q does not say %q", text, tt.want)
			}
			for e := err; e != nil; e = errors.Unwrap(e) {
				if strings.Contains(e.Error(), token) {
					t.Errorf("wrapped error %T leaks the token", e)
				}
			}
		})
	}
	if len(seen) == 0 || seen[0] != "Bearer "+token {
		t.Errorf("the server never got the token (saw %q): the test proves nothing", seen)
	}
}
