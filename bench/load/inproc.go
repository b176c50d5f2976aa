package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/broker"
	"github.com/bundle-adapter/bundle-adapter/broker/rabbitmq"
	"github.com/bundle-adapter/bundle-adapter/config"
	"github.com/bundle-adapter/bundle-adapter/hyperfleetapi"
	"github.com/bundle-adapter/bundle-adapter/internal/logfmt"
	"github.com/bundle-adapter/bundle-adapter/internal/stacktest"
	"github.com/bundle-adapter/bundle-adapter/maestroclient"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/view"
	"github.com/bundle-adapter/bundle-adapter/metrics"
)

// inProcess runs the pipeline in the harness process, wired as `serve`
// wires it (RabbitMQ consumer, dispatcher, metrics-wrapped Maestro pool and
// HyperFleet API client). It exists for CPU and heap profiles of the
// adapter's code under real load; its RSS and CPU include the harness and
// the agents.
type inProcess struct {
	srv     *http.Server
	listen  string
	cancel  context.CancelFunc
	done    chan struct{}
	closeMC func()
	prof    *os.File
	// memProfile, when set, is where stop writes a heap profile.
	memProfile string
}

// startInProcess loads the stack's files f, wires the pipeline as serve
// does and starts it, returning once its consumer is subscribed (and, when
// cpuProfile is set, a CPU profile into it has started). Its log is
// adapter.log in f.Dir; log gets the consumer's error. stop ends it all.
func startInProcess(ctx context.Context, f stacktest.Files, cpuProfile, memProfile string, log *slog.Logger) (*inProcess, error) {
	cfg, err := config.Load(config.Files{Adapter: f.Adapter, Task: f.Task, Broker: f.Broker}, nil)
	if err != nil {
		return nil, err
	}
	logFile, err := os.Create(filepath.Join(f.Dir, "adapter.log"))
	if err != nil {
		return nil, err
	}
	alog := slog.New(slog.NewJSONHandler(logFile, logfmt.Options(levelOf(cfg.Adapter.Log.Level))))
	m := metrics.New()
	life, cancel := context.WithCancel(context.WithoutCancel(ctx))
	parts, err := wireInProcess(life, cfg, m, alog)
	if err != nil {
		cancel()
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		cancel()
		return nil, err
	}
	p := &inProcess{listen: ln.Addr().String(), memProfile: memProfile, cancel: cancel, done: make(chan struct{}),
		closeMC: func() { _ = parts.pool.Close(); _ = logFile.Close() }}
	p.serve(life, ln, m, parts, log)
	if err := stacktest.WaitReady(ctx, "http://"+p.listen+"/readyz", 30*time.Second, nil); err != nil {
		_ = p.stop()
		return nil, err
	}
	if err := p.startCPUProfile(cpuProfile); err != nil {
		_ = p.stop()
		return nil, err
	}
	return p, nil
}

// inProcessParts is the pipeline wireInProcess builds: the Maestro pool
// (the caller closes it), the dispatcher and the RabbitMQ consumer, none
// of them started.
type inProcessParts struct {
	pool     *maestroclient.Pool
	dispatch *broker.Dispatcher
	consumer *rabbitmq.Consumer
}

// wireInProcess builds the pipeline from cfg as serve wires it, its
// Maestro and HyperFleet API clients and dispatcher reporting to m; the
// Maestro pool lives until life ends.
func wireInProcess(life context.Context, cfg *config.Config, m *metrics.Metrics, alog *slog.Logger) (inProcessParts, error) {
	pool, maestro, bundleView, err := maestroOf(life, cfg, alog)
	if err != nil {
		return inProcessParts{}, err
	}
	api := cfg.Adapter.Clients.HyperfleetAPI
	pipeline, err := adapter.New(adapter.Options{Task: cfg.Task, Adapter: cfg.Adapter.Info, Maestro: m.Maestro(maestro), View: bundleView,
		API: m.API(hyperfleetapi.New(hyperfleetapi.Options{BaseURL: api.BaseURL.Reveal(), Version: api.Version,
			Timeout: api.Timeout.D(), RetryAttempts: api.RetryAttempts, RetryBackoff: api.RetryBackoff})),
		Logger: alog, Config: cfg.Adapter.Values()})
	if err != nil {
		return inProcessParts{}, err
	}
	sub, del := cfg.Broker.Subscriber, cfg.Broker.Settings.Delivery
	d, err := broker.NewDispatcher(broker.DispatcherOptions{Process: pipeline.Run, Decode: broker.Decode,
		Workers: sub.Parallelism, MaxDeliveries: del.MaxDeliveries, MinBackoff: del.MinBackoff.D(),
		MaxBackoff: del.MaxBackoff.D(), Hooks: m.Hooks(), Logger: alog})
	if err != nil {
		return inProcessParts{}, err
	}
	rb := cfg.Broker.Settings.RabbitMQ
	consumer := rabbitmq.New(rabbitmq.Options{URL: rb.URL.Reveal(), Exchange: rb.Exchange, ExchangeType: rb.ExchangeType,
		Topic: cfg.Adapter.Clients.Broker.Topic, SubscriptionID: cfg.Adapter.Clients.Broker.SubscriptionID,
		Prefetch: rb.PrefetchCount, Logger: alog})
	return inProcessParts{pool: pool, dispatch: d, consumer: consumer}, nil
}

// maestroOf opens the Maestro pool of cfg's clients.maestro, and returns it
// (to close) with the Maestro and BundleView the pipeline uses: as serve
// wires them, behind the bundle view when clients.maestro.view is enabled,
// and a nil BundleView when not.
func maestroOf(life context.Context, cfg *config.Config, alog *slog.Logger) (*maestroclient.Pool, adapter.Maestro, adapter.BundleView, error) {
	mc := cfg.Adapter.Clients.Maestro
	opts := maestroclient.Options{
		GRPCAddress: mc.GRPCServerAddress.Reveal(), GRPC: maestroclient.TLSOptions{Insecure: true},
		HTTPURL: mc.HTTPServerAddress.Reveal(), HTTP: maestroclient.TLSOptions{Insecure: true},
		SourceID: mc.SourceID, Timeout: mc.Timeout.D(), Logger: alog,
	}
	var bv *view.View
	if mc.View.Enabled {
		bv = view.New(view.Options{MaxAge: mc.View.MaxAge.D()})
		opts.Status = bv
	}
	pool, err := maestroclient.NewPool(life, opts)
	if err != nil {
		return nil, nil, nil, err
	}
	if bv == nil {
		return pool, pool, nil, nil
	}
	return pool, view.Maestro(pool, bv), bv, nil
}

// serve starts, until life ends, p's /metrics (m's registry) and /readyz
// (the consumer subscribed) server on ln, the dispatcher, and the consumer
// feeding it; p.done is closed when the consumer returns, its error logged
// on log.
func (p *inProcess) serve(life context.Context, ln net.Listener, m *metrics.Metrics, parts inProcessParts, log *slog.Logger) {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{}))
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		if !parts.consumer.Ready() {
			http.Error(w, "not subscribed", http.StatusServiceUnavailable)
		}
	})
	p.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = p.srv.Serve(ln) }()
	go parts.dispatch.Run(life)
	go func() {
		defer close(p.done)
		if err := parts.consumer.Consume(life, parts.dispatch.Handle); err != nil {
			log.Error("in-process consumer", "error", err)
		}
	}()
}

// startCPUProfile starts a CPU profile into path, when set; stop ends it.
func (p *inProcess) startCPUProfile(path string) error {
	if path == "" {
		return nil
	}
	var err error
	if p.prof, err = os.Create(path); err == nil {
		err = pprof.StartCPUProfile(p.prof)
	}
	if err != nil {
		return fmt.Errorf("cpu profile: %w", err)
	}
	return nil
}

func (p *inProcess) metricsURL() string { return "http://" + p.listen + "/metrics" }
func (p *inProcess) pid() int           { return os.Getpid() }

func (p *inProcess) stop() error {
	var errs []error
	if p.memProfile != "" {
		errs = append(errs, writeHeapProfile(p.memProfile))
	}
	if p.prof != nil {
		pprof.StopCPUProfile()
		errs = append(errs, p.prof.Close())
	}
	p.cancel()
	select {
	case <-p.done:
	case <-time.After(40 * time.Second):
		errs = append(errs, errors.New("in-process consumer did not stop"))
	}
	errs = append(errs, p.srv.Close())
	p.closeMC()
	return errors.Join(errs...)
}

func levelOf(s string) slog.Level {
	var l slog.Level
	if err := l.UnmarshalText([]byte(strings.ToUpper(s))); err != nil {
		return slog.LevelInfo
	}
	return l
}

// writeHeapProfile writes the heap in use after a collection to path: the
// whole harness process, the in-process adapter's share named by its
// packages.
func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("heap profile: %w", err)
	}
	runtime.GC()
	if err := pprof.WriteHeapProfile(f); err != nil {
		_ = f.Close()
		return fmt.Errorf("heap profile: %w", err)
	}
	return f.Close()
}
