package main

import (
	"context"
	"log/slog"
	"net/http"
	"strings"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/config"
	"github.com/bundle-adapter/bundle-adapter/hyperfleetapi"
	"github.com/bundle-adapter/bundle-adapter/maestroclient"
)

// newMaestro opens a pool of Maestro clients (maestroclient.DefaultClients
// source connections, so creates are not capped by one connection's
// publish limiter; the writes of one bundle always go through the same
// one) configured by maestroOptions.
func newMaestro(ctx context.Context, c config.MaestroConfig, log *slog.Logger) (*maestroclient.Pool, error) {
	return maestroclient.NewPool(ctx, maestroOptions(c, log))
}

// maestroOptions maps the adapter config onto the Maestro client options.
func maestroOptions(c config.MaestroConfig, log *slog.Logger) maestroclient.Options {
	tlsFiles := c.Auth.TLSConfig
	grpcTLS := maestroclient.TLSOptions{
		Insecure: c.Insecure && c.Auth.Type != "tls", // "" or HyperFleet's "none"
		CAFile:   tlsFiles.CAFile, CertFile: tlsFiles.CertFile, KeyFile: tlsFiles.KeyFile,
		ServerName: tlsFiles.ServerName,
	}
	return maestroclient.Options{
		GRPCAddress: c.GRPCServerAddress, GRPC: grpcTLS,
		HTTPURL: c.HTTPServerAddress, HTTP: restTLS(c),
		SourceID: c.SourceID, Timeout: c.Timeout.D(),
		Retry:                    maestroclient.RetryOptions{Attempts: c.RetryAttempts},
		MaxConcurrentReads:       c.MaxConcurrentReads,
		ConsumerWrites:           maestroclient.WriteBudget{PerSecond: c.ConsumerWritesPerSecond, Burst: c.ConsumerWriteBurst},
		Keepalive:                maestroclient.KeepaliveOptions{Time: c.Keepalive.Time.D(), Timeout: c.Keepalive.Timeout.D()},
		ServerHealthinessTimeout: c.ServerHealthinessTimeout.D(),
		Logger:                   log.With("component", "maestro"),
	}
}

// restTLS secures the REST connection: plaintext for an http:// address;
// otherwise the REST CA (http_ca_file, else ca_file) and, with auth.type
// tls, the client certificate of the gRPC connection and the server name
// (http_server_name, else server_name).
func restTLS(c config.MaestroConfig) maestroclient.TLSOptions {
	if strings.HasPrefix(c.HTTPServerAddress, "http://") {
		return maestroclient.TLSOptions{Insecure: true}
	}
	files := c.Auth.TLSConfig
	t := maestroclient.TLSOptions{CAFile: firstNonEmpty(files.HTTPCAFile, files.CAFile)}
	if c.Auth.Type == "tls" {
		t.CertFile, t.KeyFile = files.CertFile, files.KeyFile
		t.ServerName = firstNonEmpty(files.HTTPServerName, files.ServerName)
	}
	return t
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// newAPI maps the adapter config onto the HyperFleet API client.
func newAPI(c config.HyperfleetAPIConfig) adapter.API {
	return hyperfleetapi.New(hyperfleetapi.Options{
		BaseURL: c.BaseURL, Version: c.Version, Timeout: c.Timeout.D(),
		RetryAttempts: c.RetryAttempts, RetryBackoff: c.RetryBackoff,
		BaseDelay: c.BaseDelay.D(), MaxDelay: c.MaxDelay.D(), DefaultHeaders: c.DefaultHeaders,
		TokenPath: c.Auth.TokenPath, TokenCacheTTL: c.Auth.TokenCacheTTL.D(),
		AllowedOrigins: c.AllowedOrigins, UserAgent: userAgent(),
	})
}

// userAgent names this build in every HTTP request it makes.
func userAgent() string { return "bundle-adapter/" + version }

// uaTransport sets the User-Agent of every request it sends.
type uaTransport struct{ next http.RoundTripper }

func (t uaTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("User-Agent", userAgent())
	return t.next.RoundTrip(r)
}
