package main

import (
	"cmp"
	"context"
	"log/slog"
	"net/http"
	"strings"
	"time"

	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/config"
	"github.com/bundle-adapter/bundle-adapter/hyperfleetapi"
	"github.com/bundle-adapter/bundle-adapter/internal/secret"
	"github.com/bundle-adapter/bundle-adapter/maestroclient"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/view"
	"github.com/bundle-adapter/bundle-adapter/tracing"
)

// newMaestro opens a pool of Maestro clients (maestroclient.DefaultClients
// source connections, so creates are not capped by one connection's
// publish limiter; the writes of one bundle always go through the same
// one) with opts (maestroOptions, checked by planServe).
//
// With maestro.view.enabled the pool feeds the returned view with its
// status stream, and the returned Maestro feeds it with its reads (see
// maestroclient/view); the returned refresher, which the caller runs,
// fills the view with Lists of this source's bundles after every
// (re)subscription and every 3/4 max_age, reporting each to listed. The
// view and the refresher are nil otherwise and Maestro is the pool.
func newMaestro(ctx context.Context, opts maestroclient.Options, vc config.MaestroView, listed func(view.RefreshResult), log *slog.Logger) (*maestroclient.Pool, adapter.Maestro, adapter.BundleView, *view.Refresher, error) {
	var v *view.View
	var r *view.Refresher
	var pool *maestroclient.Pool
	if vc.Enabled {
		v = view.New(view.Options{MaxAge: vc.MaxAge.D()})
		size := cmp.Or(vc.ListPageSize, maestroclient.DefaultListPageSize)
		r = view.NewRefresher(v, view.RefresherOptions{Logger: log, Listed: listed,
			List: func(ctx context.Context, page func([]adapter.BundleKey, []*workv1.ManifestWork, time.Time) error) error {
				_, err := pool.List(ctx, size, page)
				return err
			}})
		opts.Status = r
	}
	pool, err := maestroclient.NewPool(ctx, opts)
	if err != nil || v == nil {
		return pool, pool, nil, nil, err
	}
	log.Info("bundle view enabled: unchanged events skip their Maestro read", "max_age", vc.MaxAge.D().String(),
		"list_page_size", cmp.Or(vc.ListPageSize, maestroclient.DefaultListPageSize), "list_every", r.Every().String())
	return pool, view.Maestro(pool, v), v, r, nil
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
		GRPCAddress: c.GRPCServerAddress.Reveal(), GRPC: grpcTLS,
		HTTPURL: c.HTTPServerAddress.Reveal(), HTTP: restTLS(c),
		SourceID: c.SourceID, Timeout: c.Timeout.D(),
		Retry:              maestroclient.RetryOptions{Attempts: c.RetryAttempts},
		MaxConcurrentReads: c.MaxConcurrentReads,
		ConsumerWrites: maestroclient.WriteBudget{Mode: c.ConsumerWriteMode, PerSecond: c.ConsumerWritesPerSecond,
			Burst: c.ConsumerWriteBurst, Ceiling: c.ConsumerWritesCeiling, Window: c.ConsumerWriteWindow},
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
	if strings.HasPrefix(c.HTTPServerAddress.Reveal(), "http://") {
		return maestroclient.TLSOptions{Insecure: true}
	}
	files := c.Auth.TLSConfig
	t := maestroclient.TLSOptions{CAFile: cmp.Or(files.HTTPCAFile, files.CAFile)}
	if c.Auth.Type == "tls" {
		t.CertFile, t.KeyFile = files.CertFile, files.KeyFile
		t.ServerName = cmp.Or(files.HTTPServerName, files.ServerName)
	}
	return t
}

// newAPI maps the adapter config onto the HyperFleet API client, traced
// by tp (nil or off: not traced).
func newAPI(c config.HyperfleetAPIConfig, tp *tracing.Provider) adapter.API {
	return hyperfleetapi.New(hyperfleetapi.Options{
		BaseURL: c.BaseURL.Reveal(), Version: c.Version, Timeout: c.Timeout.D(),
		RetryAttempts: c.RetryAttempts, RetryBackoff: c.RetryBackoff,
		BaseDelay: c.BaseDelay.D(), MaxDelay: c.MaxDelay.D(), DefaultHeaders: c.DefaultHeaders.Reveal(),
		TokenPath: c.Auth.TokenPath, TokenCacheTTL: c.Auth.TokenCacheTTL.D(),
		AllowedOrigins: secret.RevealAll(c.AllowedOrigins), UserAgent: userAgent(),
		Tracer: tp.Tracer(), Propagator: tp.Propagator(),
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
