package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/broker"
	"github.com/bundle-adapter/bundle-adapter/config"
	"github.com/bundle-adapter/bundle-adapter/hyperfleetapi/apistub"
	"github.com/bundle-adapter/bundle-adapter/internal/boundedfile"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/memmaestro"
	"github.com/bundle-adapter/bundle-adapter/memrun"
)

type dryRunFlags struct {
	configFlags
	event, apiResponses, state, stateOut, now, output string
	// discovery is HyperFleet adapter's dry-run discovery file: the
	// resources that exist, by name (ManifestWorks read as the Maestro
	// state's works, other objects as the in-memory API server's).
	discovery string
	// kubeState and kubeStateOut chain the in-memory API server of the
	// kubernetes resources as maestroState/stateOut chain Maestro's.
	kubeState, kubeStateOut string
	// trace adds what the event computed, phase by phase (adapter.Options.Trace).
	trace bool
}

func newDryRunCmd() *cobra.Command {
	var f dryRunFlags
	cmd := &cobra.Command{
		Use:   "dry-run",
		Short: "Run one event through the real pipeline against an in-memory Maestro and a canned HyperFleet API",
		Long: `dry-run runs one CloudEvent through params, preconditions, bundles and post
exactly as serve would, but against an in-memory Maestro (--maestro-state) and a
canned HyperFleet API (--api-responses). Chain runs with --maestro-state-out.
Exit codes: 0 the event was processed (whatever its outcome), 2 invalid config,
3 invalid event.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return f.run(cmd) },
	}
	f.register(cmd, false)
	fs := cmd.Flags()
	fs.StringVar(&f.event, "event", "", "structured-mode CloudEvent JSON file (required)")
	fs.StringVar(&f.apiResponses, "api-responses", "", `canned API answers: {"GET /api/hyperfleet/v1/clusters/c1": {"status": 200, "body": {...}}}`)
	fs.StringVar(&f.state, "maestro-state", "", `Maestro state: {"works": [...], "deleteBehavior": "pending|immediate", "consumers": [...]}`)
	fs.StringVar(&f.stateOut, "maestro-state-out", "", "write the final Maestro state here (same format)")
	fs.StringVar(&f.discovery, "discovery", "", `HyperFleet adapter's discovery file: {"<name>": ManifestWork, ...}, the bundles that exist (instead of --maestro-state)`)
	fs.StringVar(&f.kubeState, "kube-state", "", `in-memory API server state of the kubernetes resources: {"objects": [...]}`)
	fs.StringVar(&f.kubeStateOut, "kube-state-out", "", "write the final API server state here (same format)")
	fs.StringVar(&f.now, "now", "", "fix the clock (RFC3339)")
	fs.StringVar(&f.output, "output", "text", "json or text")
	fs.BoolVar(&f.trace, "trace", false, "also show what the event computed: each param's value (secrets redacted), source and default, each precondition's result and captures, each resource's discovery, rendered object, rules and decision, the payloads and the warnings")
	return cmd
}

func (f *dryRunFlags) run(cmd *cobra.Command) error {
	if f.output != "json" && f.output != "text" {
		return fmt.Errorf("--output must be json or text, not %q", f.output)
	}
	cfg, err := f.load(cmd)
	if err != nil {
		return err
	}
	clock, err := f.clock()
	if err != nil {
		return err
	}
	ev, err := readEvent(f.event)
	if err != nil {
		return &exitError{code: exitInvalidEvent, err: err}
	}
	store, api, err := f.fakes(cfg, clock)
	if err != nil {
		return err
	}
	kube, err := f.kubeFake(cfg, clock)
	if err != nil {
		return err
	}
	warns := &memrun.Warnings{}
	opts := memrun.PipelineOptions(cfg, memrun.Fakes{Maestro: store, Kube: kube, API: api, Warnings: warns}, clock, nil)
	opts.Trace = f.trace
	p, err := adapter.New(opts)
	if err != nil {
		return err
	}
	res := p.Run(context.Background(), ev)
	if err := f.saveState(store.Store); err != nil {
		return err
	}
	if err := f.saveKubeState(kube); err != nil {
		return err
	}
	report := newReport(res, store.Calls(), api.Calls())
	report.addKubeCalls(kube.Calls())
	report.Warnings = warns.List()
	report.Trace = newTraceReport(res.Trace, report.Warnings)
	if report.Trace != nil {
		report.Warnings = report.Trace.Warnings
	}
	if f.output == "json" {
		return report.writeJSON(cmd.OutOrStdout())
	}
	return report.writeText(cmd.OutOrStdout())
}

func (f *dryRunFlags) clock() (func() time.Time, error) {
	if f.now == "" {
		return time.Now, nil
	}
	t, err := time.Parse(time.RFC3339, f.now)
	if err != nil {
		return nil, fmt.Errorf("--now must be RFC3339 (2026-01-02T15:04:05Z): %v", err)
	}
	return func() time.Time { return t }, nil
}

// maxDryRunFileBytes bounds the --maestro-state and --api-responses files.
const maxDryRunFileBytes = 64 << 20

// readBounded reads the file a flag names as a bounded regular file: a FIFO
// or a device fails at once instead of hanging the dry-run.
func readBounded(flag, path string, limit int64) (io.Reader, error) {
	data, err := boundedfile.Read(path, limit)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", flag, path, err)
	}
	return bytes.NewReader(data), nil
}

func readEvent(path string) (adapter.Event, error) {
	if path == "" {
		return adapter.Event{}, fmt.Errorf("--event is required")
	}
	// Read through the bounded reader (a regular file, within the read
	// deadline) up to one byte past the event limit: ReadStructured then
	// refuses an event over the limit as serve does.
	if err := boundedfile.Check(path, math.MaxInt64); err != nil {
		return adapter.Event{}, fmt.Errorf("--event %s: %w", path, err)
	}
	data, err := boundedfile.ReadPrefix(path, broker.MaxEventBytes+1)
	if err != nil {
		return adapter.Event{}, fmt.Errorf("--event %s: %w", path, err)
	}
	ev, err := broker.ReadStructured(bytes.NewReader(data))
	if err != nil {
		return adapter.Event{}, fmt.Errorf("%s: %w", path, err)
	}
	return ev, nil
}

// fakes are the in-memory Maestro (from --maestro-state or --discovery)
// and the canned API. The store's works without a consumer (a discovery
// file's) are adopted through the returned store's Get and GetBundles.
func (f *dryRunFlags) fakes(cfg *config.Config, clock func() time.Time) (*memrun.Maestro, *apistub.Stub, error) {
	opts := memrun.MaestroOptions(cfg, clock)
	store := memrun.NewMaestro(memmaestro.New(opts))
	if f.state != "" && f.discovery != "" {
		return nil, nil, fmt.Errorf("--maestro-state and --discovery both name the bundles that exist: give one")
	}
	if f.discovery != "" {
		r, err := readBounded("--discovery", f.discovery, maxDryRunFileBytes)
		if err != nil {
			return nil, nil, err
		}
		if store, err = memrun.MaestroDiscovery(r, cfg.Task, opts); err != nil {
			return nil, nil, fmt.Errorf("--discovery %s: %w", f.discovery, err)
		}
	}
	if f.state != "" {
		r, err := readBounded("--maestro-state", f.state, maxDryRunFileBytes)
		if err != nil {
			return nil, nil, err
		}
		if store, err = memrun.MaestroState(r, opts); err != nil {
			return nil, nil, fmt.Errorf("--maestro-state %s: %w", f.state, err)
		}
	}
	if f.apiResponses == "" {
		api, err := memrun.API(cfg, nil)
		return store, api, err
	}
	r, err := readBounded("--api-responses", f.apiResponses, maxDryRunFileBytes)
	if err != nil {
		return nil, nil, err
	}
	api, err := memrun.API(cfg, r)
	if err != nil {
		return nil, nil, fmt.Errorf("--api-responses %s: %w", f.apiResponses, err)
	}
	return store, api, nil
}

func (f *dryRunFlags) saveState(store *memmaestro.Store) error {
	if f.stateOut == "" {
		return nil
	}
	out, err := os.Create(f.stateOut)
	if err != nil {
		return fmt.Errorf("--maestro-state-out: %w", err)
	}
	if err := store.SaveState(out); err != nil {
		out.Close()
		return fmt.Errorf("--maestro-state-out: %w", err)
	}
	return out.Close()
}
