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
	}, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("metrics")) }), time.Nanosecond)
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
