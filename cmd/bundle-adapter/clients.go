package main

import (
	"context"
	"log/slog"
	"strings"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/config"
	"github.com/bundle-adapter/bundle-adapter/hyperfleetapi"
	"github.com/bundle-adapter/bundle-adapter/maestroclient"
)

// newMaestro maps the adapter config onto a pool of Maestro clients
// (maestroclient.DefaultClients source connections, so creates are not
// capped by one connection's publish limiter; the writes of one bundle
// always go through the same one).
func newMaestro(ctx context.Context, c config.MaestroConfig, log *slog.Logger) (*maestroclient.Pool, error) {
	tlsFiles := c.Auth.TLSConfig
	grpcTLS := maestroclient.TLSOptions{
		Insecure: c.Insecure && c.Auth.Type == "",
		CAFile:   tlsFiles.CAFile, CertFile: tlsFiles.CertFile, KeyFile: tlsFiles.KeyFile,
		ServerName: tlsFiles.ServerName,
	}
	httpTLS := maestroclient.TLSOptions{
		Insecure: strings.HasPrefix(c.HTTPServerAddress, "http://"),
		CAFile:   firstNonEmpty(tlsFiles.HTTPCAFile, tlsFiles.CAFile),
	}
	if httpTLS.Insecure {
		httpTLS.CAFile = ""
	}
	return maestroclient.NewPool(ctx, maestroclient.Options{
		GRPCAddress: c.GRPCServerAddress, GRPC: grpcTLS,
		HTTPURL: c.HTTPServerAddress, HTTP: httpTLS,
		SourceID: c.SourceID, Timeout: c.Timeout.D(),
		Retry:                    maestroclient.RetryOptions{Attempts: c.RetryAttempts},
		MaxConcurrentReads:       c.MaxConcurrentReads,
		Keepalive:                maestroclient.KeepaliveOptions{Time: c.Keepalive.Time.D(), Timeout: c.Keepalive.Timeout.D()},
		ServerHealthinessTimeout: c.ServerHealthinessTimeout.D(),
		Logger:                   log.With("component", "maestro"),
	})
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
		TokenPath: c.Auth.TokenPath, TokenCacheTTL: c.Auth.TokenCacheTTL.D(),
		AllowedOrigins: c.AllowedOrigins,
	})
}
