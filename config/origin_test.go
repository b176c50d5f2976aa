package config

import (
	"strings"
	"testing"
)

func TestParseOrigin(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://API.example.com", "https://api.example.com"},
		{"https://api.example.com:443/", "https://api.example.com"},
		{"http://h:8080", "http://h:8080"},
		{"http://[::1]:80", "http://[::1]"},
		{"https://h/path", ""},
		{"ftp://h", ""},
		{"https://u:p@h", ""},
		{"h:8080", ""},
	}
	for _, tt := range tests {
		got, err := ParseOrigin(tt.in)
		if (err != nil) != (tt.want == "") || got != tt.want {
			t.Errorf("ParseOrigin(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

// clients.hyperfleet_api.allowed_origins is a list of origins; the env
// variable takes them comma-separated; anything but an origin is an error
// that does not echo credentials.
func TestAllowedOriginsConfig(t *testing.T) {
	t.Setenv("HYPERFLEET_API_ALLOWED_ORIGINS", "https://a.example.com, http://b.example.com:8080")
	cfg, err := LoadAdapterConfig("examples/onprem/adapter-config.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Clients.HyperfleetAPI.AllowedOrigins; len(got) != 2 || got[1] != "http://b.example.com:8080" {
		t.Fatalf("allowed_origins = %q", got)
	}
	t.Setenv("HYPERFLEET_API_ALLOWED_ORIGINS", "https://a.example.com/path,https://u:pw-9f@c.example.com")
	_, err = LoadAdapterConfig("examples/onprem/adapter-config.yaml", nil)
	assertErrors(t, err, []string{
		"clients.hyperfleet_api.allowed_origins[0]: must be an origin",
		"clients.hyperfleet_api.allowed_origins[1]: must be an origin",
	})
	if strings.Contains(err.Error(), "pw-9f") {
		t.Errorf("the error echoes a password: %v", err)
	}
}
