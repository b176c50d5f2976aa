package memrun

import (
	"io"
	"log/slog"
	"time"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/config"
	"github.com/bundle-adapter/bundle-adapter/kubeclient/memkube"
)

// Fakes are the in-memory boundaries one pipeline runs against.
type Fakes struct {
	Maestro *Maestro
	Kube    *memkube.Store
	// API is the HyperFleet API: an *apistub.Stub, or anything that
	// answers from one.
	API adapter.API
	// Warnings, when set, receives what the pipeline logs at warn level
	// and above (what serve would log for the event).
	Warnings *Warnings
}

// NewPipeline is the pipeline serve builds for cfg, against the fakes,
// with clock and lookupEnv (nil: the process environment), logging
// nowhere but its warnings to f.Warnings when set.
func NewPipeline(cfg *config.Config, f Fakes, clock func() time.Time, lookupEnv func(string) (string, bool)) (*adapter.Pipeline, error) {
	return adapter.New(PipelineOptions(cfg, f, clock, lookupEnv))
}

// PipelineOptions are the options NewPipeline builds its pipeline with.
func PipelineOptions(cfg *config.Config, f Fakes, clock func() time.Time, lookupEnv func(string) (string, bool)) adapter.Options {
	var h slog.Handler = slog.NewTextHandler(io.Discard, nil)
	if f.Warnings != nil {
		h = f.Warnings
	}
	return adapter.Options{Task: cfg.Task, Adapter: cfg.Adapter.Info, Maestro: f.Maestro, Kube: f.Kube, API: f.API,
		Clock: clock, LookupEnv: lookupEnv, Logger: slog.New(h), Config: cfg.Adapter.Values()}
}
