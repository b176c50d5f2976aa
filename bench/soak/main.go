// Command soak is `make soak` (hack/soak.sh): the adapter binary as two
// replicas on one RabbitMQ queue, driven for SOAK_MINUTES by paced
// Sentinel-like rounds over SOAK_CLUSTERS clusters, on its own Maestro
// (behind PgBouncer) with simulated agents, and with --real-agents a slice
// of the clusters on real `maestro agent`s applying to a kube-apiserver,
// through a seeded schedule of faults (Maestro, RabbitMQ, PostgreSQL, API
// outage, replica SIGKILL, agent restart, recreation and deletion waves). It records histories outside the
// adapter into the run directory and checks them (bench/soak/check):
// results.json, results.md and results.svg, a verdict per invariant, exit 1
// when one fails. docs/reliability.md ("Soak") says what it proves.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/bundle-adapter/bundle-adapter/bench/soak/check"
	"github.com/bundle-adapter/bundle-adapter/internal/logfmt"
)

// options are the soak's flags.
type options struct {
	adapterBin, hackDir, out, example, broken string
	maestroREST, maestroGRPC, maestroBroker   string
	maestroMetrics                            string
	rabbitURL, prefix                         string

	clusters, consumers int
	realAgents          int
	realClusters        int
	kubeconfig          string
	capacity, load      float64
	minPeriod           time.Duration
	duration, outage    time.Duration
	drain, sampleEvery  time.Duration
	viewMaxAge          time.Duration
	seed                int64
	faults              []string
}

func parseFlags(args []string) (*options, error) {
	o := &options{}
	fs := flag.NewFlagSet("soak", flag.ContinueOnError)
	fs.StringVar(&o.adapterBin, "adapter-bin", "", "the bundle-adapter binary under test (required)")
	fs.StringVar(&o.hackDir, "hack-dir", "hack", "the repository's hack/ (maestro.sh restarts Maestro with the environment it was started with)")
	fs.StringVar(&o.out, "out", "", "run directory: histories, logs, results (required)")
	fs.StringVar(&o.example, "example", "config/examples/onprem", "the example whose task config and bundles are driven")
	fs.StringVar(&o.broken, "broken", "", "a deliberately broken adapter (ackearly, nowait): a lying proxy between it and its API or Maestro REST (broken.go)")
	fs.StringVar(&o.maestroREST, "maestro-rest", "http://127.0.0.1:18700", "Maestro REST URL")
	fs.StringVar(&o.maestroGRPC, "maestro-grpc", "127.0.0.1:18790", "Maestro source gRPC address")
	fs.StringVar(&o.maestroBroker, "maestro-broker", "127.0.0.1:18791", "Maestro agent gRPC broker address")
	fs.StringVar(&o.maestroMetrics, "maestro-metrics", "http://127.0.0.1:18784/metrics", "Maestro's Prometheus metrics URL (its spec event queue: delivery.go)")
	fs.StringVar(&o.rabbitURL, "rabbitmq-url", "amqp://guest:guest@127.0.0.1:5672/", "RabbitMQ URL")
	fs.StringVar(&o.prefix, "prefix", "soak", "prefix of the run's exchange, queue, source id and consumers")
	fs.IntVar(&o.clusters, "clusters", 2000, "clusters (2 bundles each), 1 to 100000")
	fs.IntVar(&o.consumers, "consumers", 8, "consumers (one simulated agent each), 1 to 100")
	fs.IntVar(&o.realAgents, "real-agents", 0, "more consumers, 0 to 4, each served by a real maestro agent (hack/agent.sh) on the kube-apiserver of --kubeconfig; the clusters are spread over all consumers")
	fs.IntVar(&o.realClusters, "real-clusters", 40, "clusters placed on the real agents, spread evenly over the run's clusters and over the real agents, 1 to 45 per agent: "+
		"with more than about 100 bundles an agent's restart can deadlock with Maestro (docs/reliability.md, \"Soak\")")
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "kubeconfig of the kube-apiserver the real agents apply to (hack/kube.sh env); required with --real-agents")
	fs.Float64Var(&o.capacity, "capacity", 1000, "the adapter's capacity in events/s on this machine (bench/README.md)")
	fs.Float64Var(&o.load, "load", 0.6, "fraction of the capacity published, (0, 1]")
	fs.DurationVar(&o.minPeriod, "min-period", time.Second, "shortest resend period of a cluster (small runs would resend faster than Sentinel could)")
	fs.DurationVar(&o.duration, "duration", 30*time.Minute, "how long the publisher runs, 1m to 24h")
	fs.DurationVar(&o.outage, "outage", 30*time.Second, "length of each API outage (status PUTs answer 503)")
	fs.DurationVar(&o.drain, "drain", 2*time.Minute, "upper bound of the final drain after the last round")
	fs.DurationVar(&o.sampleEvery, "sample-every", 10*time.Second, "period of the replicas' /proc and /metrics samples")
	fs.DurationVar(&o.viewMaxAge, "view-max-age", 5*time.Minute, "clients.maestro.view.max_age of the replicas; 0 turns the view off")
	fs.Int64Var(&o.seed, "seed", 1, "seed of the fault schedule and of the clusters each fault picks")
	faults := fs.String("faults", strings.Join(allFaults, ","), "comma-separated faults of the schedule (the final drain's come on top); \"\" for none")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	for _, f := range strings.Split(*faults, ",") {
		if f = strings.TrimSpace(f); f != "" {
			o.faults = append(o.faults, f)
		}
	}
	return o, o.validate()
}

func (o *options) validate() error {
	switch {
	case o.adapterBin == "" || o.out == "":
		return errors.New("--adapter-bin and --out are required (run through hack/soak.sh)")
	case o.clusters < 1 || o.clusters > 100000:
		return errors.New("--clusters must be 1 to 100000")
	case o.consumers < 1 || o.consumers > 100:
		return errors.New("--consumers must be 1 to 100")
	case o.realAgents < 0 || o.realAgents > 4:
		return errors.New("--real-agents must be 0 to 4")
	case o.realAgents > 0 && (o.realClusters < 1 || o.realClusters > 45*o.realAgents || o.realClusters > o.clusters):
		return errors.New("--real-clusters must be 1 to 45 per real agent, and at most --clusters")
	case o.realAgents > 0 && o.kubeconfig == "":
		return errors.New("--real-agents needs --kubeconfig (run through hack/soak.sh, which starts the kube-apiserver)")
	case !(o.load > 0 && o.load <= 1) || !(o.capacity > 0 && o.capacity <= 100000):
		return errors.New("--load must be in (0, 1], --capacity in (0, 100000]")
	case o.duration < time.Minute || o.duration > 24*time.Hour:
		return errors.New("--duration must be 1m to 24h")
	case o.outage < time.Second || o.outage > 10*time.Minute || o.drain < 10*time.Second || o.drain > time.Hour:
		return errors.New("--outage must be 1s to 10m, --drain 10s to 1h")
	case o.sampleEvery < time.Second || o.sampleEvery > time.Minute || o.minPeriod < 100*time.Millisecond || o.minPeriod > time.Minute:
		return errors.New("--sample-every must be 1s to 1m, --min-period 100ms to 1m")
	}
	for _, f := range o.faults {
		if !contains(allFaults, f) {
			return fmt.Errorf("--faults: unknown fault %q (known: %s)", f, strings.Join(allFaults, ", "))
		}
	}
	return nil
}

// checkOnly checks the histories of an earlier run directory again
// (`soak check DIR`) and rewrites its results: 0 pass, 1 fail, 2 error.
func checkOnly(dir string) int {
	h, err := check.Load(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		return 2
	}
	r := check.Check(h)
	if err := writeResults(dir, h, r, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		return 2
	}
	if !r.Pass() {
		return 1
	}
	return 0
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func main() {
	if len(os.Args) == 3 && os.Args[1] == "check" {
		os.Exit(checkOnly(os.Args[2]))
	}
	o, err := parseFlags(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(2)
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, logfmt.Options(slog.LevelInfo)))
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	pass, err := run(ctx, o, log)
	if err != nil {
		log.Error("soak failed", "error", err)
		os.Exit(1)
	}
	if !pass {
		os.Exit(1)
	}
}
