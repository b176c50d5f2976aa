package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/bundle-adapter/bundle-adapter/internal/logfmt"
	"github.com/bundle-adapter/bundle-adapter/internal/stacktest"
)

// sideBySideCommand runs one contender of issue 47's side-by-side
// (`bench-load side-by-side --contender NAME --bin FILE --example DIR`):
// hyperfleet-adapter (the anchor) or bundle-adapter, on the anchor's own
// example config (charts/examples/maestro) unchanged, against a Maestro of
// its own (hack/bench.sh starts a fresh one per contender), RabbitMQ and a
// recording HyperFleet API. It sends one event per cluster (the create
// round), then --rounds more rounds of the same events (unchanged), each a
// closed loop of --window events in flight, and writes
// sidebyside-<contender>.json into --out. sideBySideReportCommand compares
// two of them against issue 47's floors.
const sideBySideCommand = "side-by-side"

// sideBySideConsumer is the consumer the anchor's example places every
// cluster on (its placementClusterName param).
const sideBySideConsumer = "cluster1"

// sbsOptions are the flags of sideBySideCommand.
type sbsOptions struct {
	contender, bin, example string
	clusters, window        int
	rounds, publishers      int
	agent                   string
	eventTimeout            time.Duration

	maestroREST, maestroGRPC, maestroBroker, rabbitURL string
	runDir, out                                        string
}

func parseSideBySideFlags(args []string) (*sbsOptions, error) {
	o := &sbsOptions{}
	fs := flag.NewFlagSet("bench-load side-by-side", flag.ContinueOnError)
	fs.StringVar(&o.contender, "contender", "", "the contender's name in the results: anchor or bundle-adapter")
	fs.StringVar(&o.bin, "bin", "", "the contender's binary, run as `BIN serve --config ... --task-config ...`")
	fs.StringVar(&o.example, "example", "", "folder holding the anchor's charts/examples/maestro files (hack/bench.sh extracts them from the anchor's git)")
	fs.IntVar(&o.clusters, "clusters", 1000, "clusters: one ManifestWork each, all on the example's consumer cluster1")
	fs.IntVar(&o.window, "window", 48, "events in flight at once")
	fs.IntVar(&o.rounds, "rounds", 3, "unchanged rounds after the create round")
	fs.IntVar(&o.publishers, "publishers", 4, "RabbitMQ publisher connections")
	fs.StringVar(&o.agent, "agent", "none", "none (as issue 47's side-by-side ran) or simulated (one simulated agent for cluster1)")
	fs.DurationVar(&o.eventTimeout, "event-timeout", 60*time.Second, "an event whose status is not reported within this is counted as lost")
	fs.StringVar(&o.maestroREST, "maestro-rest", "http://127.0.0.1:18100", "Maestro REST URL")
	fs.StringVar(&o.maestroGRPC, "maestro-grpc", "127.0.0.1:18190", "Maestro source gRPC address")
	fs.StringVar(&o.maestroBroker, "maestro-broker", "127.0.0.1:18191", "Maestro agent gRPC broker address (--agent simulated)")
	fs.StringVar(&o.rabbitURL, "rabbitmq-url", "amqp://guest:guest@127.0.0.1:5672/", "RabbitMQ URL")
	fs.StringVar(&o.runDir, "run-dir", filepath.Join(os.TempDir(), "bundle-adapter-bench"), "configs and logs of the run")
	fs.StringVar(&o.out, "out", "bench", "folder of sidebyside-<contender>.json")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	switch {
	case o.contender != "anchor" && o.contender != "bundle-adapter":
		return nil, fmt.Errorf("--contender must be anchor or bundle-adapter, not %q", o.contender)
	case o.bin == "" || o.example == "":
		return nil, errors.New("--bin and --example are required (run through hack/bench.sh --phases side-by-side)")
	case o.agent != "none" && o.agent != "simulated":
		return nil, fmt.Errorf("--agent must be none or simulated, not %q", o.agent)
	case o.clusters < 1 || o.window < 1 || o.rounds < 1 || o.publishers < 1:
		return nil, errors.New("--clusters, --window, --rounds and --publishers must be positive")
	}
	o.window = min(o.window, max(1, o.clusters/2))
	return o, nil
}

// runSideBySideCommand is the subcommand's main; it returns the exit code.
func runSideBySideCommand(args []string) int {
	log := slog.New(slog.NewTextHandler(os.Stderr, logfmt.Options(slog.LevelInfo)))
	o, err := parseSideBySideFlags(args)
	if err != nil {
		log.Error("invalid flags", "error", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	res, err := runSideBySide(ctx, o, log)
	if err != nil {
		log.Error("side-by-side failed", "contender", o.contender, "error", err)
		return 1
	}
	if err := res.write(o.out); err != nil {
		log.Error("write results", "error", err)
		return 1
	}
	return 0
}

// sbsRound is one round of a contender: every cluster's event once.
type sbsRound struct {
	Name    string  `json:"name"`
	Events  int     `json:"events"`
	Lost    int     `json:"lost"`
	Failed  int     `json:"failed"`
	Bad     int     `json:"bad"`
	Seconds float64 `json:"seconds"`
	PerS    float64 `json:"events_per_s"`
	// MaestroREST counts the contender's requests to Maestro's REST API in
	// the round by method (through the harness's counting proxy); gRPC
	// publishes (the writes) are not in it.
	MaestroREST map[string]int64 `json:"maestro_rest_requests"`
	APIGets     int              `json:"api_gets"`
	FirstBad    string           `json:"first_bad,omitempty"`
	FirstError  string           `json:"first_error,omitempty"`
}

// sbsResult is one contender's sidebyside-<contender>.json.
type sbsResult struct {
	Contender string     `json:"contender"`
	Bin       string     `json:"bin"`
	Clusters  int        `json:"clusters"`
	Window    int        `json:"window"`
	Agent     string     `json:"agent"`
	Started   string     `json:"started"`
	Rounds    []sbsRound `json:"rounds"`
	Bundles   int        `json:"bundles_in_maestro"`
}

func (r *sbsResult) write(dir string) error {
	return writeJSONFile(dir, "sidebyside-"+r.Contender+".json", r)
}

// writeJSONFile writes v, indented, as dir/name, creating dir.
func writeJSONFile(dir, name string, v any) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, name), append(b, '\n'), 0o644)
}

// runSideBySide runs one contender's rounds.
func runSideBySide(ctx context.Context, o *sbsOptions, log *slog.Logger) (*sbsResult, error) {
	res := &sbsResult{Contender: o.contender, Bin: o.bin, Clusters: o.clusters, Window: o.window, Agent: o.agent,
		Started: time.Now().UTC().Format(time.RFC3339)}
	if err := stacktest.RegisterConsumers(ctx, o.maestroREST, []string{sideBySideConsumer}); err != nil {
		return nil, err
	}
	runID := fmt.Sprintf("sbs%d", time.Now().Unix())
	dir := filepath.Join(o.runDir, runID+"-"+o.contender)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if o.agent == "simulated" {
		p, err := startAgentsProcess(ctx, o.maestroBroker, []string{sideBySideConsumer}, 0, filepath.Join(dir, "agent.log"))
		if err != nil {
			return nil, err
		}
		defer p.stop()
	}
	api, err := startAnchorAPI(o.clusters)
	if err != nil {
		return nil, err
	}
	defer api.close()
	proxy, err := startCountingProxy(o.maestroREST)
	if err != nil {
		return nil, err
	}
	defer proxy.close()

	c := contender{name: o.contender, bin: o.bin, topic: runID, subscription: runID + "-" + o.contender}
	if err := c.writeFiles(o.example, dir, o.rabbitURL); err != nil {
		return nil, fmt.Errorf("write configs: %w", err)
	}
	log.Info("starting the contender on the anchor's example config", "contender", o.contender, "configs", dir)
	if err := c.start(ctx, o, api.URL, proxy.url); err != nil {
		return nil, err
	}
	defer func() {
		if err := c.stop(); err != nil {
			log.Warn("contender stop", "contender", o.contender, "error", err)
		}
		if err := stacktest.DropRabbitMQ(o.rabbitURL, c.topic, c.queue()); err != nil {
			log.Warn("could not delete the run's RabbitMQ exchange and queue", "topic", c.topic, "error", err)
		}
	}()
	drv, err := newDriver(o.rabbitURL, c.topic, runID, o.publishers, api, o.eventTimeout)
	if err != nil {
		return nil, err
	}
	defer drv.close()

	for r := 0; r <= o.rounds && ctx.Err() == nil; r++ {
		name := "creates"
		if r > 0 {
			name = fmt.Sprintf("unchanged-%d", r)
		}
		round := runRound(ctx, drv, api, proxy, o, name)
		log.Info("round done", "contender", o.contender, "round", name, "events", round.Events,
			"events_per_s", fmt.Sprintf("%.1f", round.PerS), "lost", round.Lost, "failed", round.Failed, "bad", round.Bad,
			"maestro_rest", round.MaestroREST, "took", fmt.Sprintf("%.1fs", round.Seconds))
		res.Rounds = append(res.Rounds, round)
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if res.Bundles, err = stacktest.ListBundles(ctx, o.maestroREST, "consumer_name='"+sideBySideConsumer+"'", 1, nil); err != nil {
		return nil, fmt.Errorf("count bundles: %w", err)
	}
	return res, nil
}

// runRound sends every cluster's event once, --window in flight.
func runRound(ctx context.Context, drv *driver, api *recordingAPI, proxy *countingProxy, o *sbsOptions, name string) sbsRound {
	before := proxy.counts()
	gets0, _, _ := api.counts()
	t := drv.closedLoop(ctx, o.clusters, 0, o.clusters, o.window, time.Now().Add(o.eventTimeout+time.Duration(o.clusters)*time.Second))
	gets1, _, _ := api.counts()
	after := proxy.counts()
	r := sbsRound{Name: name, Events: t.reported(), Lost: t.lost, Failed: t.failed, Bad: t.bad, FirstBad: t.firstBad,
		Seconds: t.end.Sub(t.start).Seconds(), MaestroREST: map[string]int64{}, APIGets: gets1 - gets0}
	if t.firstErr != nil {
		r.FirstError = t.firstErr.Error()
	}
	if r.Seconds > 0 {
		r.PerS = float64(r.Events) / r.Seconds
	}
	for m, n := range after {
		if d := n - before[m]; d > 0 {
			r.MaestroREST[m] = d
		}
	}
	return r
}
