// Command demo tells the onprem example's recreation story on the real local
// stack that hack/stack.sh starts (Maestro, a real agent, a kube-apiserver).
// It is what `make run-local` runs, through hack/run-local.sh.
//
// It serves a fake HyperFleet API on loopback (one sample cluster, every
// status PUT recorded), starts `bundle-adapter serve` with the onprem
// example's task config against that API, the stack's Maestro and the
// machine's RabbitMQ, publishes a Sentinel-like reconcile event every
// --interval, and prints what happens: each status PUT (conditions, bundle
// operations, Maestro writes) and the objects that appear, change and go in
// the API server. The story:
//
//  1. a new cluster at generation 1: both bundles are created and applied;
//  2. generation 2: the validation Job's pod template changes (immutable), so
//     its bundle is recreated; a finalizer holds the old Job's deletion for
//     --hold, so RecreationPending shows, then the new Job with a new UID;
//  3. the cluster is deleted (deleted_time): the bundles are deleted and
//     Finalized turns True once Maestro answers 404.
//
// With --once it exits after the story: 0 when every step happened, 1 when
// one did not within --step-timeout. Without it, the adapter keeps running
// and the Sentinel keeps publishing until SIGINT. Either way the adapter is
// stopped with SIGTERM; the stack is left as it is.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// options are the demo's flags and the stack's environment.
type options struct {
	bin         string // the bundle-adapter binary
	example     string // the onprem example folder
	consumer    string // the Maestro consumer (agent) the bundles go to
	clusterID   string // sample cluster id; default demo-<random>
	rabbitURL   string
	restURL     string // Maestro REST
	grpcAddr    string // Maestro source gRPC
	kubeconfig  string
	interval    time.Duration // between two Sentinel events
	hold        time.Duration // how long a finalizer holds the old Job
	stepTimeout time.Duration
	readyTime   time.Duration // how long the adapter may take to be ready
	once        bool
	keepDir     bool
}

func parseFlags() options {
	var o options
	flag.StringVar(&o.bin, "bin", "bin/bundle-adapter", "the bundle-adapter binary")
	flag.StringVar(&o.example, "example", "config/examples/onprem", "the onprem example folder (task config and bundles)")
	flag.StringVar(&o.consumer, "consumer", envOr("MAESTRO_CONSUMER", "cluster1"), "Maestro consumer whose agent applies the bundles (env MAESTRO_CONSUMER)")
	flag.StringVar(&o.clusterID, "cluster-id", "", "id of the sample cluster (default demo-<random>, fresh for every run)")
	flag.StringVar(&o.rabbitURL, "rabbitmq-url", envOr("RABBITMQ_URL", "amqp://guest:guest@127.0.0.1:5672/"), "RabbitMQ URL (env RABBITMQ_URL)")
	flag.DurationVar(&o.interval, "interval", 2*time.Second, "time between two Sentinel reconcile events")
	flag.DurationVar(&o.hold, "hold", 5*time.Second, "how long a finalizer holds the old Job's deletion during the recreation (0: no hold; RecreationPending may then be too short to see)")
	flag.DurationVar(&o.stepTimeout, "step-timeout", 60*time.Second, "how long each step of the story may take")
	flag.DurationVar(&o.readyTime, "ready-timeout", 60*time.Second, "how long the adapter may take to answer /readyz")
	flag.BoolVar(&o.once, "once", false, "tell the story once and exit: 0 if every step happened in time, 1 otherwise")
	flag.BoolVar(&o.keepDir, "keep", false, "keep the temporary folder (configs, adapter log) even on success")
	flag.Parse()
	o.restURL = os.Getenv("MAESTRO_REST_URL")
	o.grpcAddr = os.Getenv("MAESTRO_GRPC_ADDR")
	o.kubeconfig = os.Getenv("KUBECONFIG")
	return o
}

func (o options) check() error {
	var missing []string
	for name, v := range map[string]string{"MAESTRO_REST_URL": o.restURL, "MAESTRO_GRPC_ADDR": o.grpcAddr, "KUBECONFIG": o.kubeconfig} {
		if v == "" {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%v not set: bring the stack up and eval \"$(hack/stack.sh env)\" (hack/run-local.sh does both)", missing)
	}
	if _, err := os.Stat(o.bin); err != nil {
		return fmt.Errorf("adapter binary: %w (make build)", err)
	}
	if o.interval <= 0 || o.stepTimeout <= 0 {
		return errors.New("--interval and --step-timeout must be positive")
	}
	return nil
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// Exit codes.
const (
	exitOK          = 0
	exitFailed      = 1
	exitInterrupted = 130 // SIGINT before the story was complete
)

func main() {
	o := parseFlags()
	if err := o.check(); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(exitFailed)
	}
	// The first SIGINT or SIGTERM cancels ctx; later ones are ignored while
	// the demo stops the adapter (bounded) and cleans up.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, o))
}

func run(ctx context.Context, o options) int {
	p := newPrinter(os.Stdout)
	d, err := setUp(ctx, o, p)
	if err != nil {
		p.fail("%v", err)
		if d != nil {
			d.tearDown(false)
		}
		return exitFailed
	}
	storyErr := d.tell(ctx)
	complete := storyErr == nil
	if complete && !o.once {
		storyErr = d.idle(ctx)
	}
	interrupted := errors.Is(storyErr, errInterrupted)
	switch {
	case interrupted:
		p.note("interrupted")
	case storyErr != nil:
		p.fail("%v", storyErr)
		d.showAdapterLog(30)
	}
	ok := storyErr == nil || (interrupted && complete)
	d.tearDown(ok)
	switch {
	case storyErr != nil && !interrupted:
		return exitFailed
	case interrupted && !complete:
		return exitInterrupted
	}
	return exitOK
}
