package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/bundle-adapter/bundle-adapter/config"
	"github.com/bundle-adapter/bundle-adapter/tracing"
)

// setupTracing sets tracing up from the environment (HYPERFLEET_TRACING_ENABLED,
// OTEL_*; see tracing.FromEnv). Off, the provider has no tracer and every
// client and the pipeline start no span.
func setupTracing(ctx context.Context, cfg *config.Config, log *slog.Logger) (*tracing.Provider, error) {
	c, warns := tracing.FromEnv(os.LookupEnv, cfg.Adapter.Info.Name, version)
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
		"sampler", c.Sampler, "sampler_arg", c.SamplerArg)
	return tp, nil
}
