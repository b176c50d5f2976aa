package main

import (
	"bytes"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/bundle-adapter/bundle-adapter/config"
)

// serve logs each load warning, and with debug_config the merged
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
	if got, want := readinessURL(api), strings.TrimRight(api.BaseURL, "/")+"/api/hyperfleet"; got != want {
		t.Errorf("readiness URL %q, want %q", got, want)
	}
}
