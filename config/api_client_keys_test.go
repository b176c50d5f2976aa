package config

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// base_delay, max_delay, default_headers and the retryBackoff spelling load
// and are used; a max_delay above the ceiling warns and is capped; a bad
// header name is an error naming the line.
func TestAPIClientKeys(t *testing.T) {
	f := filepath.Join("testdata", "hyperfleet", "api-client-keys.yaml")
	_, err := LoadAdapterConfig(f, nil)
	assertErrors(t, err, []string{`clients.hyperfleet_api.default_headers.Bad Name: is not a valid HTTP header name`})

	t.Setenv("HYPERFLEET_API_DEFAULT_HEADERS", "X-Tenant=t2, X-Trace=on")
	cfg, err := LoadAdapterConfig(f, nil)
	if err != nil {
		t.Fatal(err)
	}
	api := cfg.Clients.HyperfleetAPI
	if api.RetryBackoff != "linear" || api.BaseDelay.D() != 2*time.Second || api.MaxDelay.D() != MaxAPIRetryDelay {
		t.Errorf("retry settings: %+v", api)
	}
	if len(api.DefaultHeaders) != 2 || api.DefaultHeaders["X-Tenant"].Reveal() != "t2" || api.DefaultHeaders["X-Trace"].Reveal() != "on" {
		t.Errorf("default headers from env: %v", api.DefaultHeaders)
	}
	if len(cfg.Warnings) != 1 || !strings.Contains(cfg.Warnings[0].Error(), "clients.hyperfleet_api.max_delay: 1m0s is above") {
		t.Errorf("warnings = %v", cfg.Warnings)
	}
}
