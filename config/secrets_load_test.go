package config

import (
	"strings"
	"testing"
)

// Issue 28, findings 1 and 8, the load side: whatever carries a credential
// and is refused names its key or variable and never shows the credential.
func TestRefusedCredentialsNotEchoed(t *testing.T) {
	tests := []struct {
		name, file, yaml, env, value, wantPath string
	}{
		{name: "env header without =", file: "adapter", env: "HYPERFLEET_API_DEFAULT_HEADERS", value: "Authorization: Bearer S3CRET-h1",
			wantPath: "clients.hyperfleet_api.default_headers"},
		{name: "header name holding a value", file: "adapter", yaml: "    default_headers:\n      \"Authorization: Bearer S3CRET-h2\": x\n",
			wantPath: "clients.hyperfleet_api.default_headers.Authorization..."},
		{name: "header value with CR LF", file: "adapter", yaml: "    default_headers:\n      Authorization: \"Bearer S3CRET-h3\\r\\nX-Evil: 1\"\n",
			wantPath: "clients.hyperfleet_api.default_headers.Authorization"},
		{name: "allowed origin, password with /", file: "adapter", env: "HYPERFLEET_API_ALLOWED_ORIGINS", value: "https://u:1/S3CRET-o1@h.example.com",
			wantPath: "clients.hyperfleet_api.allowed_origins[0]"},
		{name: "allowed origin, user info", file: "adapter", env: "HYPERFLEET_API_ALLOWED_ORIGINS", value: "https://S3CRET-o2@h.example.com",
			wantPath: "clients.hyperfleet_api.allowed_origins[0]"},
		{name: "pubsub endpoint with user info", file: "broker", env: "BROKER_GOOGLEPUBSUB_ENDPOINT", value: "user:S3CRET-p1@pubsub.example.com:443",
			wantPath: "broker.googlepubsub.endpoint"},
		{name: "pubsub endpoint, token as user", file: "broker", env: "BROKER_GOOGLEPUBSUB_ENDPOINT", value: "S3CRET-p2@pubsub.example.com:443",
			wantPath: "broker.googlepubsub.endpoint"},
		{name: "amqp password with /", file: "rabbit", env: "BROKER_RABBITMQ_URL", value: "amqp://u:1/S3CRET-r1@h/", wantPath: "broker.rabbitmq.url"},
		{name: "amqp opaque", file: "rabbit", env: "BROKER_RABBITMQ_URL", value: "amqp:u:S3CRET-r2@h", wantPath: "broker.rabbitmq.url"},
		{name: "amqp @ in the query", file: "rabbit", env: "BROKER_RABBITMQ_URL", value: "amqp://u:S3CRET-r3@h/?x=a@b", wantPath: "broker.rabbitmq.url"},
		{name: "grpc address with user info", file: "adapter", env: "HYPERFLEET_MAESTRO_GRPC_SERVER_ADDRESS", value: "u:S3CRET-g1@maestro:8090",
			wantPath: "clients.maestro.grpc_server_address"},
		{name: "grpc target as a URL with user info", file: "adapter", env: "HYPERFLEET_MAESTRO_GRPC_SERVER_ADDRESS", value: "dns://u:S3CRET-g2@maestro:8090/x",
			wantPath: "clients.maestro.grpc_server_address"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.env != "" {
				t.Setenv(tt.env, tt.value)
			}
			var err error
			switch tt.file {
			case "adapter":
				src := "adapter:\n  name: a\nclients:\n  hyperfleet_api:\n    base_url: https://api.example.com\n" + tt.yaml +
					"  maestro:\n    grpc_server_address: m:8090\n    http_server_address: http://m:8000\n    source_id: s\n    insecure: true\n"
				_, err = LoadAdapterConfig(writeTemp(t, src), nil)
			case "broker":
				_, err = LoadBrokerConfig(writeTemp(t, "broker:\n  type: googlepubsub\n  googlepubsub:\n    project_id: p\n"))
			case "rabbit":
				_, err = LoadBrokerConfig(writeTemp(t, "broker:\n  type: rabbitmq\n  rabbitmq:\n    url: amqp://h/\n"))
			}
			if err == nil {
				t.Fatal("loaded; want it refused")
			}
			if !strings.Contains(err.Error(), tt.wantPath+":") || strings.Contains(err.Error(), "S3CRET") {
				t.Errorf("want an error at %s without the secret, got:\n%v", tt.wantPath, err)
			}
		})
	}
}
