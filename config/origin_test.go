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
	if got := cfg.Clients.HyperfleetAPI.AllowedOrigins; len(got) != 2 || got[1].Reveal() != "http://b.example.com:8080" {
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

// An api_call URL whose literal text names another origin fails at load
// unless allowed_origins lists that origin: it would be refused on every
// event.
func TestAbsoluteURLOriginsCheckedAtLoad(t *testing.T) {
	files := Files{Adapter: "examples/onprem/adapter-config.yaml", Task: "testdata/absolute-url/task-config.yaml"}
	_, err := Load(files, nil)
	assertErrors(t, err, []string{
		"post.post_actions[0].api_call.url: origin https://hooks.example.com is neither clients.hyperfleet_api.base_url's (http://127.0.0.1:18000) nor listed in clients.hyperfleet_api.allowed_origins",
	})
	if strings.Contains(err.Error(), "params[1]") {
		t.Errorf("the API's own origin is refused: %v", err)
	}
	t.Setenv("HYPERFLEET_API_ALLOWED_ORIGINS", "https://hooks.example.com")
	if _, err := Load(files, nil); err != nil {
		t.Fatalf("with the origin allowed: %v", err)
	}
}
