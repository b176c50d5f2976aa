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

func startInProcess(ctx context.Context, f stacktest.Files, cpuProfile, memProfile string, log *slog.Logger) (*inProcess, error) {
	cfg, err := config.Load(config.Files{Adapter: f.Adapter, Task: f.Task, Broker: f.Broker}, nil)
	if err != nil {
		return nil, err
	}
	logFile, err := os.Create(filepath.Join(f.Dir, "adapter.log"))
	if err != nil {
		return nil, err
	}
	alog := slog.New(slog.NewJSONHandler(logFile, &slog.HandlerOptions{Level: levelOf(cfg.Adapter.Log.Level)}))
	m := metrics.New()
	mc := cfg.Adapter.Clients.Maestro
	life, cancel := context.WithCancel(context.WithoutCancel(ctx))
	opts := maestroclient.Options{
		GRPCAddress: mc.GRPCServerAddress, GRPC: maestroclient.TLSOptions{Insecure: true},
		HTTPURL: mc.HTTPServerAddress, HTTP: maestroclient.TLSOptions{Insecure: true},
		SourceID: mc.SourceID, Timeout: mc.Timeout.D(), Logger: alog,
	}
	// The bundle view as serve wires it (clients.maestro.view).
	var bv *view.View
	if mc.View.Enabled {
		bv = view.New(view.Options{MaxAge: mc.View.MaxAge.D()})
		opts.Status = bv
	}
	pool, err := maestroclient.NewPool(life, opts)
	if err != nil {
		cancel()
		return nil, err
	}
	var maestro adapter.Maestro = pool
	var bundleView adapter.BundleView
	if bv != nil {
		maestro, bundleView = view.Maestro(pool, bv), bv
	}
	api := cfg.Adapter.Clients.HyperfleetAPI
	pipeline, err := adapter.New(adapter.Options{Task: cfg.Task, Adapter: cfg.Adapter.Info, Maestro: m.Maestro(maestro), View: bundleView,
		API: m.API(hyperfleetapi.New(hyperfleetapi.Options{BaseURL: api.BaseURL, Version: api.Version,
			Timeout: api.Timeout.D(), RetryAttempts: api.RetryAttempts, RetryBackoff: api.RetryBackoff})),
		Logger: alog, Config: cfg.Adapter.Values()})
	if err != nil {
		cancel()
		return nil, err
	}
	sub, del := cfg.Broker.Subscriber, cfg.Broker.Settings.Delivery
	d, err := broker.NewDispatcher(broker.DispatcherOptions{Process: pipeline.Run, Decode: broker.Decode,
		Workers: sub.Parallelism, MaxDeliveries: del.MaxDeliveries, MinBackoff: del.MinBackoff.D(),
		MaxBackoff: del.MaxBackoff.D(), Hooks: m.Hooks(), Logger: alog})
	if err != nil {
		cancel()
		return nil, err
	}
	rb := cfg.Broker.Settings.RabbitMQ
	consumer := rabbitmq.New(rabbitmq.Options{URL: rb.URL, Exchange: rb.Exchange, ExchangeType: rb.ExchangeType,
		Topic: cfg.Adapter.Clients.Broker.Topic, SubscriptionID: cfg.Adapter.Clients.Broker.SubscriptionID,
		Prefetch: rb.PrefetchCount, Logger: alog})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		cancel()
		return nil, err
	}
	p := &inProcess{listen: ln.Addr().String(), memProfile: memProfile, cancel: cancel, done: make(chan struct{}),
		closeMC: func() { _ = pool.Close(); _ = logFile.Close() }}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{}))
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		if !consumer.Ready() {
			http.Error(w, "not subscribed", http.StatusServiceUnavailable)
		}
	})
	p.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = p.srv.Serve(ln) }()
	go d.Run(life)
	go func() {
		defer close(p.done)
		if err := consumer.Consume(life, d.Handle); err != nil {
			log.Error("in-process consumer", "error", err)
		}
	}()
	if err := stacktest.WaitReady(ctx, "http://"+p.listen+"/readyz", 30*time.Second, nil); err != nil {
		_ = p.stop()
		return nil, err
	}
	if cpuProfile != "" {
		if p.prof, err = os.Create(cpuProfile); err == nil {
			err = pprof.StartCPUProfile(p.prof)
		}
		if err != nil {
			_ = p.stop()
			return nil, fmt.Errorf("cpu profile: %w", err)
		}
	}
	return p, nil
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
