package main

import (
	"log/slog"
	"testing"

	"github.com/bundle-adapter/bundle-adapter/config"
	"github.com/bundle-adapter/bundle-adapter/internal/secret"
	"github.com/bundle-adapter/bundle-adapter/maestroclient"
)

// With auth.type tls the REST connection presents the same client
// certificate as gRPC and checks the configured server name
// (http_server_name, else server_name); plaintext only for an http:// REST
// address without TLS auth.
func TestMaestroTLSReachesREST(t *testing.T) {
	files := config.TLSConfig{CAFile: "ca.pem", CertFile: "client.pem", KeyFile: "client-key.pem", ServerName: "maestro.internal"}
	tests := []struct {
		name     string
		c        config.MaestroConfig
		wantHTTP maestroclient.TLSOptions
	}{
		{"tls auth over https", config.MaestroConfig{HTTPServerAddress: secret.NewURL("https://m:8000"),
			Auth: config.MaestroAuth{Type: "tls", TLSConfig: files}},
			maestroclient.TLSOptions{CAFile: "ca.pem", CertFile: "client.pem", KeyFile: "client-key.pem", ServerName: "maestro.internal"}},
		{"REST CA and server name of their own", config.MaestroConfig{HTTPServerAddress: secret.NewURL("https://m:8000"),
			Auth: config.MaestroAuth{Type: "tls", TLSConfig: withHTTP(files, "rest-ca.pem", "rest.internal")}},
			maestroclient.TLSOptions{CAFile: "rest-ca.pem", CertFile: "client.pem", KeyFile: "client-key.pem", ServerName: "rest.internal"}},
		{"https REST without tls auth: server check only", config.MaestroConfig{HTTPServerAddress: secret.NewURL("https://m:8000"), Insecure: true,
			Auth: config.MaestroAuth{TLSConfig: config.TLSConfig{CAFile: "ca.pem"}}},
			maestroclient.TLSOptions{CAFile: "ca.pem"}},
		{"plaintext REST", config.MaestroConfig{HTTPServerAddress: secret.NewURL("http://m:8000"), Insecure: true},
			maestroclient.TLSOptions{Insecure: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := maestroOptions(tt.c, slog.New(slog.DiscardHandler)).HTTP
			if got != tt.wantHTTP {
				t.Errorf("REST TLS = %+v, want %+v", got, tt.wantHTTP)
			}
		})
	}
}

func withHTTP(t config.TLSConfig, ca, serverName string) config.TLSConfig {
	t.HTTPCAFile, t.HTTPServerName = ca, serverName
	return t
}

// The Pub/Sub endpoint switches to plaintext only as the config says.
func TestPubSubInsecureIsPassedOn(t *testing.T) {
	cfg := &config.Config{Adapter: &config.AdapterConfig{}, Broker: &config.BrokerConfig{}}
	cfg.Broker.Settings.GooglePubSub = config.GooglePubSub{ProjectID: "p", Endpoint: secret.NewURL("emulator:8085"), Insecure: true}
	o := pubsubOptions(cfg, slog.New(slog.DiscardHandler))
	if o.Endpoint != "emulator:8085" || !o.Insecure {
		t.Errorf("endpoint %q insecure %v, want emulator:8085 and true", o.Endpoint, o.Insecure)
	}
}

// The write budget keys of clients.maestro reach the Maestro client; unset
// they leave the client's defaults to it.
func TestConsumerWriteBudgetIsPassedOn(t *testing.T) {
	tests := []struct {
		name string
		c    config.MaestroConfig
		want maestroclient.WriteBudget
	}{
		{"set", config.MaestroConfig{ConsumerWritesPerSecond: 5, ConsumerWriteBurst: 10}, maestroclient.WriteBudget{PerSecond: 5, Burst: 10}},
		{"adaptive set", config.MaestroConfig{ConsumerWriteMode: "adaptive", ConsumerWritesCeiling: 100, ConsumerWriteWindow: 30},
			maestroclient.WriteBudget{Mode: "adaptive", Ceiling: 100, Window: 30}},
		{"fixed", config.MaestroConfig{ConsumerWriteMode: "fixed"}, maestroclient.WriteBudget{Mode: "fixed"}},
		{"unset: the client's defaults", config.MaestroConfig{}, maestroclient.WriteBudget{}},
	}
	for _, tt := range tests {
		if got := maestroOptions(tt.c, slog.New(slog.DiscardHandler)).ConsumerWrites; got != tt.want {
			t.Errorf("%s: write budget %+v, want %+v", tt.name, got, tt.want)
		}
	}
}
