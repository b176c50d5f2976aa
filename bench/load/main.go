// Command load is the load harness of `make bench` (bench/README.md): it
// drives the adapter with N clusters' reconcile events on the real stack —
// Maestro on PostgreSQL, RabbitMQ, simulated agents, and a recording
// HyperFleet API in this process — and reports throughput, latency, Maestro
// calls per event, memory and CPU, checked against the floors of issue 17.
//
// hack/bench.sh starts the Maestro server and passes its addresses; run the
// harness through it.
package main

import (
	"github.com/bundle-adapter/bundle-adapter/maestroclient"

	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/bundle-adapter/bundle-adapter/internal/logfmt"
	"github.com/bundle-adapter/bundle-adapter/internal/stacktest"
)

// options are the harness flags.
type options struct {
	clusters    int
	consumers   int
	window      int
	publishers  int
	parallelism int
	prefetch    int

	unchangedFor    time.Duration
	latencyFor      time.Duration
	sentinelPeriod  time.Duration
	latencyLoads    []float64
	settleFor       time.Duration
	warmPerSecLo    float64
	eventTimeout    time.Duration
	createsPerSecLo float64 // only to bound the create phase in time

	adapterMode string
	agentsMode  string
	adapterBin  string
	cpuProfile  string
	memProfile  string
	logLevel    string

	maestroREST, maestroGRPC, maestroBroker, maestroPIDFile string
	maestroDB                                               string
	mode                                                    string
	requestsMetric                                          string
	viewMaxAge                                              time.Duration
	rabbitURL                                               string
	example                                                 string
	runDir                                                  string
	out                                                     string
	verbose                                                 bool

	// The phases of issue 34 (fleet.go), run when --phases names them.
	phases               phaseSet
	oneConsumerClusters  int
	oneConsumerApplyRate float64
	oneConsumerAgent     string
	ceilingClients       int
	budgetMetric         string
	steadyAges           float64
	restartFor           time.Duration
	restartAfter         time.Duration
	viewPageSize         int
	maxConcurrentReads   int
}

func parseFlags() *options {
	o := &options{}
	fs := flag.NewFlagSet("bench-load", flag.ExitOnError)
	fs.IntVar(&o.clusters, "clusters", 1000, "clusters (each gets 2 bundles: the onprem example)")
	fs.IntVar(&o.consumers, "consumers", 8, "Maestro consumers the clusters are spread over, one simulated agent each")
	fs.IntVar(&o.window, "window", 48, "events in flight at once in the saturating (closed-loop) phases")
	fs.IntVar(&o.publishers, "publishers", 4, "RabbitMQ publisher connections")
	fs.IntVar(&o.parallelism, "parallelism", 16, "adapter subscriber.parallelism (pipeline workers)")
	fs.IntVar(&o.prefetch, "prefetch", 64, "adapter rabbitmq.prefetch_count")
	fs.DurationVar(&o.unchangedFor, "unchanged-for", 30*time.Second, "length of the unchanged-events throughput phase")
	fs.DurationVar(&o.latencyFor, "latency-for", 30*time.Second, "upper bound of the paced latency phase")
	fs.DurationVar(&o.sentinelPeriod, "sentinel-period", 10*time.Second, "Sentinel's resend period: the latency phase sends clusters/period events/s (at most 80% of the measured capacity)")
	loads := fs.String("latency-loads", "", "comma-separated fractions of the measured capacity (e.g. 0.6,0.4): after the latency phase, one more paced phase at each, named latency-<percent>%, to draw where the tail begins; the floor is checked on the latency phase only")
	fs.DurationVar(&o.settleFor, "settle-for", 0, "upper bound of the wait for Maestro to go idle after the create phase (the agents' statuses stored and streamed); 0: 90s + 5ms per bundle created")
	fs.Float64Var(&o.warmPerSecLo, "min-warm-events-per-s", 50, "bounds the warm-up pass to 60s + clusters/this")
	fs.DurationVar(&o.eventTimeout, "event-timeout", 60*time.Second, "an event whose status is not reported within this is counted as lost")
	fs.Float64Var(&o.createsPerSecLo, "min-creates-per-s", 20, "bounds the create phase to 60s + bundles/this")
	fs.StringVar(&o.adapterMode, "adapter", "binary", "binary: run --adapter-bin serve (production path; RSS and CPU are the adapter's own); inproc: run the pipeline in this process (for --cpuprofile)")
	fs.StringVar(&o.agentsMode, "agents", "process", "process: the simulated agents run in a child process of their own (their stores out of the heap of the API that timestamps statuses); inproc: in the harness's process (as before; for comparison)")
	fs.StringVar(&o.adapterBin, "adapter-bin", "", "the bundle-adapter binary (hack/bench.sh builds it)")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "inproc only: write a CPU profile of the throughput phases here")
	fs.StringVar(&o.memProfile, "memprofile", "", "inproc only: write a heap profile (in use, after a collection) here when the run ends, the view full")
	fs.StringVar(&o.logLevel, "adapter-log-level", "info", "the adapter's log level (the example's is info)")
	fs.StringVar(&o.maestroREST, "maestro-rest", "http://127.0.0.1:18100", "Maestro REST URL")
	fs.StringVar(&o.maestroGRPC, "maestro-grpc", "127.0.0.1:18190", "Maestro source gRPC address")
	fs.StringVar(&o.maestroBroker, "maestro-broker", "127.0.0.1:18191", "Maestro agent gRPC broker address")
	fs.StringVar(&o.maestroPIDFile, "maestro-pid-file", "", "PID file of the Maestro server (its CPU is reported when set)")
	fs.StringVar(&o.maestroDB, "maestro-db", "", "Maestro's PostgreSQL database: when set, the PostgreSQL sessions it opens are counted (psql, MAESTRO_DB_HOST/PORT/USER/PASSWORD)")
	fs.StringVar(&o.mode, "mode", "stock", "the Maestro's setup, a label of the run: stock (on PostgreSQL) or pooled (behind PgBouncer); the creates floor applies to pooled")
	fs.StringVar(&o.requestsMetric, "maestro-requests-metric", stacktest.MaestroRequests, "the adapter's counter of Maestro requests (every series summed): Maestro requests per unchanged event; \"n/a\" when the adapter does not expose it")
	fs.StringVar(&o.rabbitURL, "rabbitmq-url", "amqp://guest:guest@127.0.0.1:5672/", "RabbitMQ URL")
	fs.StringVar(&o.example, "example", "config/examples/onprem", "the example whose task config and bundles are driven")
	fs.StringVar(&o.runDir, "run-dir", filepath.Join(os.TempDir(), "bundle-adapter-bench"), "configs and logs of the run")
	fs.StringVar(&o.out, "out", "bench", "folder of results.json and results.md")
	fs.DurationVar(&o.viewMaxAge, "view-max-age", 5*time.Minute, "clients.maestro.view.max_age of the adapter under test; 0 turns the view off (every unchanged event reads Maestro)")
	fs.BoolVar(&o.verbose, "verbose", false, "log the harness's progress at debug level")
	phases := fs.String("phases", "base", "comma-separated phases to run after create, settle, warm-up and unchanged (which always run): base (latency and --latency-loads), one-consumer, steady, restart, replicas; fleet is the last four (issue 34), all is every one")
	fs.IntVar(&o.oneConsumerClusters, "one-consumer-clusters", 0, "one-consumer: clusters (more than --clusters, all placed on one consumer) whose bundles it creates; 0: --clusters")
	fs.Float64Var(&o.oneConsumerApplyRate, "one-consumer-apply-rate", 400, "one-consumer: bundles per second the consumer's simulated agent applies at most (0: as fast as it can)")
	fs.StringVar(&o.oneConsumerAgent, "one-consumer-agent", "simulated", "one-consumer: simulated (maestroclient/agentsim) or real (a maestro agent that hack/bench.sh starts on a kube-apiserver of its own; the applied bundles are counted in Maestro)")
	fs.IntVar(&o.ceilingClients, "ceiling-clients", 16, "one-consumer: source clients of the Pool that measures Maestro's own create limit after the adapter's creates (each has sdk-go's publish limiter, about 50/s; 0: no ceiling phase)")
	fs.StringVar(&o.budgetMetric, "write-budget-metric", "bundle_adapter_maestro_write_budget", "one-consumer: the adapter's metric of the per-consumer write budget (the series naming the consumer; any metric whose name starts with this); n/a when it has none")
	fs.Float64Var(&o.steadyAges, "steady-ages", 2.5, "steady: the phase lasts this many --view-max-age (pass a short --view-max-age, e.g. 1m)")
	fs.DurationVar(&o.restartFor, "restart-for", 100*time.Second, "restart: length of the paced phase across the restart (at least --restart-after + 70s)")
	fs.DurationVar(&o.restartAfter, "restart-after", 20*time.Second, "restart: when, into the phase, the adapter is killed (SIGKILL) and started again")
	fs.IntVar(&o.maxConcurrentReads, "max-concurrent-reads", 0, "the adapter's clients.maestro.max_concurrent_reads (0: its default, 1); the first List after a restart reads up to 4 pages at once within it")
	fs.IntVar(&o.viewPageSize, "view-page-size", maestroclient.DefaultListPageSize, "restart: the adapter's view list page size (its default); the floor is bundles / this + 100 requests in the minute after a restart")
	_ = fs.Parse(os.Args[1:])
	o.latencyLoads = parseLoads(*loads)
	o.phases = parsePhases(*phases)
	return o
}

func main() {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case agentsCommand:
			os.Exit(runAgentsCommand(os.Args[2:]))
		case sideBySideCommand:
			os.Exit(runSideBySideCommand(os.Args[2:]))
		case sideBySideReportCommand:
			os.Exit(runSideBySideReportCommand(os.Args[2:]))
		}
	}
	o := parseFlags()
	level := slog.LevelInfo
	if o.verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, logfmt.Options(level)))
	if err := o.validate(); err != nil {
		log.Error("invalid flags", "error", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	res, err := run(ctx, o, log)
	if err != nil {
		log.Error("harness failed", "error", err)
		os.Exit(1)
	}
	if err := res.write(o.out, os.Stdout); err != nil {
		log.Error("write results", "error", err)
		os.Exit(1)
	}
}

func (o *options) validate() error {
	switch {
	case o.clusters < 1 || o.consumers < 1 || o.window < 1 || o.publishers < 1:
		return errors.New("--clusters, --consumers, --window and --publishers must be positive")
	case o.adapterMode != "binary" && o.adapterMode != "inproc":
		return fmt.Errorf("--adapter must be binary or inproc, not %q", o.adapterMode)
	case slices.ContainsFunc(o.latencyLoads, func(f float64) bool { return !(f > 0 && f <= 1) }):
		return errors.New("--latency-loads takes fractions in (0, 1]")
	case o.agentsMode != "process" && o.agentsMode != "inproc":
		return fmt.Errorf("--agents must be process or inproc, not %q", o.agentsMode)
	case o.adapterMode == "binary" && o.adapterBin == "":
		return errors.New("--adapter-bin is required with --adapter binary (run through hack/bench.sh)")
	case o.cpuProfile != "" && o.adapterMode != "inproc":
		return errors.New("--cpuprofile needs --adapter inproc")
	case o.memProfile != "" && o.adapterMode != "inproc":
		return errors.New("--memprofile needs --adapter inproc")
	}
	if err := o.validatePhases(); err != nil {
		return err
	}
	// One event in flight per cluster at a time: the window must leave room.
	o.window = min(o.window, max(1, o.clusters/2))
	return nil
}

// parseLoads reads --latency-loads; a fraction that does not parse is kept
// as NaN, which validate rejects naming the flag.
func parseLoads(list string) []float64 {
	var out []float64
	for _, f := range strings.Split(list, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		v, err := strconv.ParseFloat(f, 64)
		if err != nil {
			v = math.NaN()
		}
		out = append(out, v)
	}
	return out
}
