package main

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/config"
	"github.com/bundle-adapter/bundle-adapter/health"
	"github.com/bundle-adapter/bundle-adapter/internal/secret"
	"github.com/bundle-adapter/bundle-adapter/metrics"
)

// serve logs its version and commit first, each load warning, and with debug_config the merged
// configuration with its secrets redacted.
func TestLogConfig(t *testing.T) {
	files := config.Files{Adapter: "../../config/testdata/adapter/compat-keys.yaml", Task: ex + "onprem/task-config.yaml", Broker: ex + "onprem/broker.yaml"}
	for _, debug := range []bool{false, true} {
		cfg, err := config.Load(files, nil)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Adapter.DebugConfig = debug
		var buf bytes.Buffer
		logConfig(cfg, slog.New(slog.NewTextHandler(&buf, nil)))
		out := buf.String()
		if first, _, _ := strings.Cut(out, "\n"); !strings.Contains(first, "version="+version) || !strings.Contains(first, "commit="+commit) {
			t.Errorf("debug %v: the first line does not name the version and commit:\n%s", debug, out)
		}
		if !strings.Contains(out, "path=clients.maestro.client_id") {
			t.Errorf("debug %v: the client_id warning is not logged:\n%s", debug, out)
		}
		if got := strings.Contains(out, "source_id: compat"); got != debug {
			t.Errorf("debug %v: configuration logged = %v:\n%s", debug, got, out)
		}
		if strings.Contains(out, "guest:guest") {
			t.Errorf("debug %v: a secret is logged:\n%s", debug, out)
		}
	}
}

// /config serves the merged configuration with secrets redacted; /readyz
// reads the API's readiness path, not its root (which the real API
// answers 404).
func TestConfigEndpointAndReadinessURL(t *testing.T) {
	cfg, err := config.Load(config.Files{Adapter: ex + "onprem/adapter-config.yaml", Task: ex + "onprem/task-config.yaml", Broker: ex + "onprem/broker.yaml"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	configHandler(cfg).ServeHTTP(rec, httptest.NewRequest("GET", "/config", nil))
	body := rec.Body.String()
	if rec.Code != 200 || !strings.Contains(body, "source_id: onprem-bundles") || strings.Contains(body, "guest:guest") {
		t.Errorf("/config = %d:\n%s", rec.Code, body)
	}
	api := cfg.Adapter.Clients.HyperfleetAPI
	if got, want := readinessURL(api), strings.TrimRight(api.BaseURL.Reveal(), "/")+"/api/hyperfleet"; got != want {
		t.Errorf("readiness URL %q, want %q", got, want)
	}
}

// Every HTTP request serve makes names this build: the API client's and the
// readiness probe's (the API's logs otherwise say only Go-http-client/1.1).
func TestHTTPRequestsCarryUserAgent(t *testing.T) {
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.Header.Get("User-Agent"))
	}))
	defer srv.Close()
	api := newAPI(config.HyperfleetAPIConfig{BaseURL: secret.NewURL(srv.URL), Version: "v1", RetryAttempts: 1}, nil)
	if _, err := api.Do(context.Background(), adapter.APIRequest{Method: "GET", URL: "/clusters/c1"}); err != nil {
		t.Fatal(err)
	}
	probe := &http.Client{Transport: uaTransport{http.DefaultTransport}}
	if err := health.HTTPCheck(probe, srv.URL+"/api/hyperfleet")(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := "bundle-adapter/" + version
	if len(got) != 2 || got[0] != want || got[1] != want {
		t.Errorf("User-Agent of the API call and the probe = %q, want %q", got, want)
	}
}

// The metrics port serves /metrics and nothing else.
func TestMetricsOnlyServer(t *testing.T) {
	m := metrics.New()
	h := metricsOnly(m)
	for path, code := range map[string]int{"/metrics": 200, "/healthz": 404, "/config": 404} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		if rec.Code != code {
			t.Errorf("%s = %d, want %d", path, rec.Code, code)
		}
		if path == "/metrics" && !strings.Contains(rec.Body.String(), "bundle_adapter_bundles_pending_deletion") {
			t.Errorf("/metrics lacks bundle_adapter_bundles_pending_deletion")
		}
	}
}
