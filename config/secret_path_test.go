package config

import "testing"

func TestReadsSecret(t *testing.T) {
	tests := []struct {
		path string
		want bool
	}{
		{"adapter.name", false},
		{"adapter", false},
		{"clients.hyperfleet_api.timeout", false},
		{"clients.hyperfleet_api.base_url", true},
		{"clients.hyperfleet_api.default_headers", true},
		{"clients.hyperfleet_api.default_headers.Authorization", true},
		{"clients.hyperfleet_api.allowed_origins", true},
		{"clients.hyperfleet_api", true},
		{"clients", true},
		{"clients.maestro.http_server_address", true},
		{"clients.maestro.grpc_server_address", true},
		{"clients.maestro.source_id", false},
		{"clients.broker.topic", false},
		{"no.such.path", false},
	}
	for _, tt := range tests {
		if got := ReadsSecret(tt.path); got != tt.want {
			t.Errorf("ReadsSecret(%q) = %v, want %v", tt.path, got, tt.want)
		}
	}
}
