package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"os/signal"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/spf13/cobra"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/broker"
	"github.com/bundle-adapter/bundle-adapter/config"
	"github.com/bundle-adapter/bundle-adapter/health"
	"github.com/bundle-adapter/bundle-adapter/internal/boundedhttp"
	"github.com/bundle-adapter/bundle-adapter/kubeclient"
	"github.com/bundle-adapter/bundle-adapter/maestroclient"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/view"
	"github.com/bundle-adapter/bundle-adapter/metrics"
	"github.com/bundle-adapter/bundle-adapter/tracing"
)

type serveFlags struct {
	configFlags
	listen        string
	metricsListen string
	shadow        bool
	dryRun        dryRunFlags // HyperFleet adapter's --dry-run-* flags
}

func newServeCmd() *cobra.Command {
	var f serveFlags
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Consume reconcile events from the broker and reconcile bundles",
		Long: `serve consumes CloudEvents from RabbitMQ or Pub/Sub (broker config) and runs
each through the pipeline. It serves /healthz, /readyz, /config and /metrics on
--listen, and /metrics alone on --metrics-listen (HyperFleet adapter's ports:
8080 and 9090; an empty --metrics-listen serves no second port).
SIGTERM or SIGINT: stop consuming, finish in-flight events within
subscriber.shutdown_timeout, give the rest back to the broker.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return f.run(cmd) },
	}
	f.register(cmd, true)
	cmd.Flags().StringVar(&f.listen, "listen", ":8080", "address of the health server (/healthz, /readyz, /config, /metrics)")
	cmd.Flags().StringVar(&f.metricsListen, "metrics-listen", ":9090", "address of the metrics server (/metrics); empty: none")
	cmd.Flags().BoolVar(&f.shadow, "shadow", false, "shadow mode: consume <subscription_id>-shadow, run every event, write nothing (no Maestro, Kubernetes or HyperFleet API write) and count whether each decision agrees with what is live (bundle_adapter_shadow_decisions_total)")
	f.registerDryRun(cmd)
	return cmd
}

// registerDryRun adds HyperFleet adapter's dry-run flags: with
// --dry-run-event, serve runs that one event as dry-run does and exits.
func (f *serveFlags) registerDryRun(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.StringVar(&f.dryRun.event, "dry-run-event", "", "run this CloudEvent file as dry-run does, then exit (HyperFleet adapter's flag)")
	fs.StringVar(&f.dryRun.apiResponses, "dry-run-api-responses", "", "dry-run's --api-responses (either format)")
	fs.StringVar(&f.dryRun.discovery, "dry-run-discovery", "", "dry-run's --discovery")
	fs.StringVar(&f.dryRun.output, "dry-run-output", "text", "dry-run's --output: text or json")
	fs.BoolVar(&f.dryRun.trace, "dry-run-verbose", false, "dry-run's --trace: also show each param, precondition, rendered object and decision (HyperFleet adapter's flag)")
}

func (f *serveFlags) run(cmd *cobra.Command) error {
	if f.dryRun.event != "" {
		f.dryRun.configFlags = f.configFlags
		return f.dryRun.run(cmd)
	}
	if f.broker == "" {
		return &exitError{code: exitInvalidConfig, err: errors.New("--broker-config (or BROKER_CONFIG_FILE) is required")}
	}
	cfg, err := f.load(cmd)
	if err != nil {
		return err
	}
	log := newLogger(cfg.Adapter.Log, cmd.OutOrStdout(), cmd.ErrOrStderr()).With("adapter", cfg.Adapter.Info.Name)
	logConfig(cfg, log)
	ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	return serve(ctx, cfg, listeners{health: f.listen, metrics: f.metricsListen}, f.shadow, log)
}

// listeners are the addresses serve listens on; an empty metrics address
// serves no separate metrics port.
type listeners struct{ health, metrics string }

// serve checks cfg as validate does (planServe), then runs until ctx is
// done and shuts down gracefully. A config planServe refuses is exit code
// 2, as validate's. With shadow, the plan is a shadow replica's
// (startPlan.useShadow).
func serve(ctx context.Context, cfg *config.Config, listen listeners, shadow bool, log *slog.Logger) error {
	plan, err := planServe(cfg, shadow, log)
	if err != nil {
		return &exitError{code: exitInvalidConfig, err: err}
	}
	if shadow {
		log = log.With("mode", "shadow")
		log.Info("shadow mode: nothing is written; decisions are compared with what is live", "subscription", plan.subscriptionName())
	}
	return servePlanned(ctx, cfg, plan, listen, log)
}

// servePlanned is where serve starts to connect: tests that compare
// validate and serve stop it there.
var servePlanned = runPlan

// runPlan builds the clients of plan, connects, and consumes until ctx
// is done.
func runPlan(ctx context.Context, cfg *config.Config, plan *startPlan, listen listeners, log *slog.Logger) error {
	tp, err := setupTracing(context.WithoutCancel(ctx), plan.tracing, plan.tracingWarns, log)
	if err != nil {
		return err
	}
	defer func() {
		if err := tp.Shutdown(context.Background()); err != nil {
			log.Warn("tracing: spans not exported at shutdown", "error", err.Error())
		}
	}()
	m := metrics.New()
	m.HyperFleet(metrics.BuildInfo{Component: cfg.Adapter.Info.Name, Version: version, Commit: commit, Topic: cfg.Adapter.Clients.Broker.Topic})
	opts := adapter.Options{Task: cfg.Task, Adapter: cfg.Adapter.Info,
		API: m.API(newAPI(cfg.Adapter.Clients.HyperfleetAPI, tp)), Logger: log, Config: cfg.Adapter.Values(), Tracer: tp.Tracer()}
	var mc *maestroclient.Pool
	var refresher *view.Refresher
	if plan.maestro != nil {
		var fed adapter.Maestro
		var err error
		listed := func(r view.RefreshResult) { m.ViewListed(r.Pages, r.Bundles, r.Took, r.Err) }
		if mc, fed, opts.View, refresher, err = newMaestro(context.WithoutCancel(ctx), *plan.maestro, cfg.Adapter.Clients.Maestro.View, listed, log); err != nil {
			return fmt.Errorf("maestro client: %w", err)
		}
		defer mc.Close()
		defer runRefresher(ctx, refresher)()
		m.WriteBudget(func() metrics.WriteBudgetStats { return metrics.WriteBudgetStats(mc.WriteBudgetStats()) })
		m.MaestroSourceClients(mc.SourceClients)
		opts.Maestro = tracing.Maestro(m.Maestro(fed), tp.Tracer())
	}
	var kc *kubeclient.Client
	if plan.kube != nil {
		routeClientGoLogs(log)
		var err error
		if kc, err = plan.kubeClientOrNew(); err != nil {
			return fmt.Errorf("kubernetes client (clients.kubernetes): %w", err)
		}
		opts.Kube = tracing.Kube(m.Kube(kc), tp.Tracer())
	}
	process, err := newProcess(opts, plan.shadow, m, log)
	if err != nil {
		return err
	}
	sub := cfg.Broker.Subscriber
	delivery := cfg.Broker.Settings.Delivery
	d, err := broker.NewDispatcher(broker.DispatcherOptions{
		Process: process, Decode: broker.Decode, Workers: sub.Parallelism, EventTimeout: sub.EventTimeout.D(),
		MaxDeliveries: delivery.MaxDeliveries, MinBackoff: delivery.MinBackoff.D(), MaxBackoff: delivery.MaxBackoff.D(),
		Hooks: m.Hooks(), Logger: log, Tracer: tp.Tracer(),
	})
	if err != nil {
		return err
	}
	consumer, closeConsumer, err := newConsumer(context.WithoutCancel(ctx), cfg, plan, log)
	if err != nil {
		return err
	}
	defer closeConsumer()
	checks := readinessChecks(mc, kc)
	consuming := make(chan struct{})
	if refresher != nil {
		checks["bundle_view"] = gateCheck(consuming)
	}
	srv, err := startHealth(listen.health, cfg, consumer, checks, m, log)
	if err != nil {
		return err
	}
	defer srv.Close()
	if listen.metrics != "" {
		msrv, err := startServer("metrics", listen.metrics, metricsOnly(m), log)
		if err != nil {
			return err
		}
		defer msrv.Close()
	}
	if refresher != nil {
		waitViewFilled(ctx, refresher.Filled(), viewFillWait(cfg.Adapter.Clients.Maestro.View.MaxAge.D()), log)
	}
	close(consuming)
	return consumeUntilDone(ctx, d, consumer, sub.ShutdownTimeout.D(), log)
}

// consumeUntilDone consumes until ctx is done (or the consumer fails for
// good); then the consumer stops taking messages while the dispatcher gives
// queued ones back and lets in-flight events finish within timeout.
func consumeUntilDone(ctx context.Context, d *broker.Dispatcher, c broker.Consumer, timeout time.Duration, log *slog.Logger) error {
	workCtx, cancelWork := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelWork()
	workersDone := make(chan struct{})
	go func() { d.Run(workCtx); close(workersDone) }()
	consumeCtx, stopConsuming := context.WithCancel(ctx)
	defer stopConsuming()
	consumeDone := make(chan error, 1)
	go func() { consumeDone <- c.Consume(consumeCtx, d.Handle) }()
	log.Info("consuming events")
	var consumeErr error
	select {
	case consumeErr = <-consumeDone:
		consumeDone <- consumeErr
	case <-ctx.Done():
	}
	stopConsuming()
	log.Info("stopping: finishing in-flight events", "timeout", timeout)
	shutdownCtx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := d.Shutdown(shutdownCtx); err != nil {
		log.Warn("in-flight events did not finish in time; abandoning them (the broker redelivers)", "error", err)
	}
	cancelWork()
	<-workersDone
	consumeErr = <-consumeDone
	if consumeErr != nil && !errors.Is(consumeErr, context.Canceled) {
		return fmt.Errorf("broker: %w", consumeErr)
	}
	log.Info("stopped")
	return nil
}

// startHealth serves /healthz, /readyz, /metrics and /config. Readiness checks the
// broker subscription, the HyperFleet API base URL and the transports'
// checks (see readinessChecks).
// healthCheckTimeout bounds each readiness check's request.
const healthCheckTimeout = 2 * time.Second

func startHealth(listen string, cfg *config.Config, c broker.Consumer, transports map[string]health.Check, m *metrics.Metrics, log *slog.Logger) (*boundedhttp.Server, error) {
	client := &http.Client{Timeout: healthCheckTimeout, Transport: uaTransport{http.DefaultTransport}}
	checks := map[string]health.Check{
		"broker": func(context.Context) error {
			if !c.Ready() {
				return errors.New("not subscribed")
			}
			return nil
		},
		"hyperfleet_api": health.HTTPCheck(client, readinessURL(cfg.Adapter.Clients.HyperfleetAPI)),
	}
	maps.Copy(checks, transports)
	h := health.New(checks, promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{}), health.Options{CacheFor: 5 * time.Second, Timeout: healthCheckTimeout})
	h.Handle("/config", configHandler(cfg))
	return startServer("health", listen, h, log)
}

// readinessChecks probes the transports in use (a nil client is not in
// use): Maestro's REST API through the Maestro client's own connection, the
// Kubernetes API server's /readyz through the kubernetes client's (so each
// with its TLS settings). hyperfleet-adapter's /readyz probes neither.
func readinessChecks(mc *maestroclient.Pool, kc *kubeclient.Client) map[string]health.Check {
	checks := map[string]health.Check{}
	if mc != nil {
		checks["maestro"] = func(ctx context.Context) error {
			ctx, cancel := context.WithTimeout(ctx, healthCheckTimeout)
			defer cancel()
			return mc.Ping(ctx)
		}
	}
	if kc != nil {
		checks["kubernetes"] = kubeCheck(kc)
	}
	return checks
}

// metricsOnly serves /metrics and nothing else.
func metricsOnly(m *metrics.Metrics) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{}))
	return mux
}

// startServer listens on addr and serves h until closed, with the
// timeouts and connection cap every endpoint has (internal/boundedhttp).
func startServer(name, addr string, h http.Handler, log *slog.Logger) (*boundedhttp.Server, error) {
	srv, err := boundedhttp.Listen(addr, h, boundedhttp.Options{Name: name, Log: log})
	if err != nil {
		return nil, err
	}
	log.Info(name+" server listening", "address", srv.Addr().String())
	return srv, nil
}

// logConfig logs the build first (version, commit, Go), then the load
// warnings, and with debug_config the merged configuration (secrets
// redacted, as config dump prints it).
func logConfig(cfg *config.Config, log *slog.Logger) {
	log.Info("bundle-adapter starting", "version", version, "commit", commit, "go", runtime.Version())
	for _, w := range cfg.Warnings() {
		log.Warn("config warning", "file", w.File, "line", w.Line, "path", w.Path, "warning", w.Msg)
	}
	if !cfg.Adapter.DebugConfig {
		return
	}
	var b strings.Builder
	if err := cfg.Dump(&b); err != nil {
		log.Warn("debug_config: cannot print the configuration", "error", err)
		return
	}
	log.Info("debug_config: the merged configuration, secrets redacted", "config", b.String())
}

// readinessURL is the API URL /readyz reads: base URL + readiness_path.
func readinessURL(c config.HyperfleetAPIConfig) string {
	return strings.TrimRight(c.BaseURL.Reveal(), "/") + c.ReadinessPath
}

// configHandler serves the merged adapter and broker config as config dump
// prints it (secrets redacted), as HyperFleet adapter's /config does.
func configHandler(cfg *config.Config) http.Handler {
	var b strings.Builder
	err := cfg.Dump(&b)
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if err != nil {
			http.Error(w, "cannot print the configuration: "+err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/yaml")
		_, _ = io.WriteString(w, b.String())
	})
}
