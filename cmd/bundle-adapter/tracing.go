package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/bundle-adapter/bundle-adapter/config"
	"github.com/bundle-adapter/bundle-adapter/tracing"
)

// tracingPlan is tracing's part of the start plan: the configuration from
// the environment (HYPERFLEET_TRACING_ENABLED, OTEL_*; see tracing.FromEnv)
// and its warnings. With an OTLP endpoint, the files the exporter would
// read on its own (tracing.FileEnv) are read here, once and bounded; an
// error names the variable.
func tracingPlan(cfg *config.Config) (tracing.Config, []string, error) {
	c, warns := tracing.FromEnv(os.LookupEnv, cfg.Adapter.Info.Name, version)
	if !c.Enabled || c.Endpoint.IsZero() {
		return c, warns, nil
	}
	tlsConfig, err := tracing.ReadFiles(os.LookupEnv)
	if err != nil {
		return c, warns, err
	}
	c.TLS, c.FilesRead = tlsConfig, true
	return c, warns, nil
}

// setupTracing sets tracing up as planned (tracingPlan). Off, the provider
// has no tracer and every client and the pipeline start no span.
func setupTracing(ctx context.Context, c tracing.Config, warns []string, log *slog.Logger) (*tracing.Provider, error) {
	for _, w := range warns {
		log.Warn("tracing: " + w)
	}
	if !c.Enabled {
		log.Info("tracing off")
		return &tracing.Provider{}, nil
	}
	tracing.LogErrors(log)
	tp, err := tracing.Setup(ctx, c)
	if err != nil {
		return nil, fmt.Errorf("tracing: %w", err)
	}
	endpoint := c.Endpoint.String()
	if endpoint == "" {
		endpoint = "stdout"
	}
	log.Info("tracing on", "service_name", c.ServiceName, "protocol", c.Protocol, "endpoint", endpoint,
		"sampler", c.Sampler, "sampler_arg", c.SamplerArg, "tls_from_env", c.TLS != nil)
	return tp, nil
}
