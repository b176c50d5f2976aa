package config

import (
	"strings"
	"testing"

	"github.com/bundle-adapter/bundle-adapter/internal/secret"
)

func TestRedactURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"amqp://guest:guest@h:5672/", "amqp://guest:REDACTED@h:5672/"},
		{"amqp://admin:S3cr%t!Pass@h/", "amqp://admin:REDACTED@h/"},
		{"https://tok3n@h/x", "https://REDACTED@h/x"},
		{"http://svc:p@ss/w@rd@[::1", "http://svc:REDACTED@[::1"},
		{"svc:S3cr%t!Pass@h.example.com", "svc:REDACTED@h.example.com"},
		{"svc:pw@h.example.com", "svc:REDACTED@h.example.com"},
		{"ops@example.com", "ops@example.com"},
		{"https://h/a@b", "https://h/a@b"},
		{"plain", "plain"},
	}
	for _, tt := range tests {
		if got := RedactURL(tt.in); got != tt.want {
			t.Errorf("RedactURL(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// Dump redacts inside lists too, and leaves the loaded config unchanged.
func TestDumpRedactsListItems(t *testing.T) {
	cfg := &Config{Adapter: &AdapterConfig{Clients: Clients{HyperfleetAPI: HyperfleetAPIConfig{
		AllowedOrigins: []secret.URL{secret.NewURL("https://u:pw-4a1@h.example.com")}}}}}
	var b strings.Builder
	if err := cfg.Dump(&b); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "pw-4a1") || !strings.Contains(b.String(), "u:REDACTED@h.example.com") {
		t.Errorf("dump:\n%s", b.String())
	}
	if cfg.Adapter.Clients.HyperfleetAPI.AllowedOrigins[0].Reveal() != "https://u:pw-4a1@h.example.com" {
		t.Error("Dump changed the loaded config")
	}
}
