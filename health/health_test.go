package health

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestProbes(t *testing.T) {
	brokerUp := false
	h := New(map[string]Check{
		"broker": func(context.Context) error {
			if brokerUp {
				return nil
			}
			return errors.New("not subscribed")
		},
		"maestro": func(context.Context) error { return nil },
	}, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("metrics")) }), Options{CacheFor: time.Nanosecond})
	get := func(path string) (int, string) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		return rec.Code, rec.Body.String()
	}
	if code, _ := get("/healthz"); code != 200 {
		t.Errorf("/healthz = %d", code)
	}
	if code, body := get("/readyz"); code != 503 || !strings.Contains(body, "broker: not subscribed") {
		t.Errorf("/readyz while not subscribed = %d %q", code, body)
	}
	brokerUp = true
	time.Sleep(time.Millisecond)
	if code, body := get("/readyz"); code != 200 {
		t.Errorf("/readyz when all pass = %d %q", code, body)
	}
	if code, body := get("/metrics"); code != 200 || body != "metrics" {
		t.Errorf("/metrics = %d %q", code, body)
	}
	if code, _ := get("/config"); code != 404 {
		t.Errorf("/config before it is registered = %d, want 404", code)
	}
	h.Handle("/config", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("cfg")) }))
	if code, body := get("/config"); code != 200 || body != "cfg" {
		t.Errorf("/config = %d %q", code, body)
	}
}

func TestHTTPCheck(t *testing.T) {
	status := 200
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(status) }))
	defer srv.Close()
	check := HTTPCheck(srv.Client(), srv.URL)
	if err := check(context.Background()); err != nil {
		t.Errorf("200: %v", err)
	}
	status = 503
	if err := check(context.Background()); err == nil {
		t.Error("503 must fail the check")
	}
	srv.Close()
	if err := check(context.Background()); err == nil {
		t.Error("a closed server must fail the check")
	}
}

// TestHTTPCheckErrorsHideThePassword: /readyz is unauthenticated and
// prints each check's error; a base URL with a password must not show it,
// whether the API answers 503, is down, or the URL does not even parse.
func TestHTTPCheckErrorsHideThePassword(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(503) }))
	defer srv.Close()
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	tests := []struct{ name, url string }{
		{"503", strings.Replace(srv.URL, "http://", "http://user:S3CRET@", 1) + "/api"},
		{"down", strings.Replace(down.URL, "http://", "http://user:S3CRET@", 1) + "/api"},
		{"does not parse", "http://user:1234/S3CRET@host:bad/"},
		{"control character", "http://user:S3CRET@host/\x7f\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := HTTPCheck(srv.Client(), tt.url)(context.Background())
			if err == nil {
				t.Fatal("the check passed")
			}
			if strings.Contains(err.Error(), "S3CRET") {
				t.Errorf("error shows the password: %v", err)
			}
		})
	}
}
