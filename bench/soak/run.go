package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/bundle-adapter/bundle-adapter/bench/soak/check"
	"github.com/bundle-adapter/bundle-adapter/internal/stacktest"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/agentsim"
)

// harness holds what a run started.
type harness struct {
	o          *options
	log        *slog.Logger
	start      time.Time
	api        *recordingAPI
	agents     *agents
	deliveries *deliveries // what Maestro holds against what the simulated agents received
	replicas   []*replica
	consumers  []string // every consumer, the clusters spread over them
	real       []string // the consumers of real agents (a suffix of consumers)
	kube       *kubeWatch
	queue      string
	exchange   string
	sourceID   string
	recs       map[string]*recorder
}

// run starts the stack's parts of its own, runs the soak, checks the
// histories and writes the results. It returns whether every invariant
// held; an error means the soak could not run.
func run(ctx context.Context, o *options, log *slog.Logger) (bool, error) {
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return false, err
	}
	id := fmt.Sprintf("%s-%d", o.prefix, time.Now().Unix())
	h := &harness{o: o, log: log, exchange: id, sourceID: id, queue: id + "-soak", recs: map[string]*recorder{}}
	for _, f := range []string{check.Files.Published, check.Files.API, check.Files.Agents, check.Files.Kube, check.Files.Faults, check.Files.Samples} {
		r, err := newRecorder(filepath.Join(o.out, f))
		if err != nil {
			return false, err
		}
		h.recs[f] = r
	}
	for i := range o.consumers {
		h.consumers = append(h.consumers, fmt.Sprintf("%s-c%d", o.prefix, i))
	}
	for i := range o.realAgents {
		h.real = append(h.real, fmt.Sprintf("%s-r%d", o.prefix, i))
	}
	h.consumers = append(h.consumers, h.real...)
	var err error
	if h.api, err = startAPI(h.recs[check.Files.API]); err != nil {
		return false, err
	}
	defer h.api.close()
	for i := range o.clusters {
		h.api.add(&cluster{id: fmt.Sprintf("c-%06d", i), consumer: h.placement(i), generation: 1})
	}
	if err := stacktest.RegisterConsumers(ctx, o.maestroREST, h.consumers); err != nil {
		return false, err
	}
	h.deliveries = newDeliveries(h)
	h.agents = &agents{life: ctx, broker: o.maestroBroker, rec: h.recs[check.Files.Agents], run: map[string]*agentsim.Agent{},
		log: slog.New(slog.NewTextHandler(io.Discard, nil)), saw: h.deliveries.saw}
	defer h.agents.stop()
	for _, c := range h.simulated() {
		if err := h.agents.start(c); err != nil {
			return false, err
		}
	}
	if len(h.real) > 0 {
		if err := h.startReal(ctx); err != nil {
			return false, err
		}
		defer func() { _ = realAgents{h.o.hackDir}.stop(h.real...) }()
	}
	wired, apiURL, stopBroken, err := brokenWiring(o, h.api.url)
	if err != nil {
		return false, err
	}
	defer stopBroken()
	files, err := writeConfigs(wired, filepath.Join(o.out, "config"), apiURL, h.sourceID, h.exchange)
	if err != nil {
		return false, err
	}
	defer func() { _ = stacktest.DropRabbitMQ(o.rabbitURL, h.exchange, h.queue) }()
	for _, name := range []string{"a", "b"} {
		r := &replica{name: name, bin: o.adapterBin, files: files, dir: o.out}
		if err := r.start(ctx); err != nil {
			return false, err
		}
		h.replicas = append(h.replicas, r)
	}
	defer func() {
		for _, r := range h.replicas {
			r.stop()
		}
	}()
	meta, err := h.soak(ctx)
	if err != nil {
		return false, err
	}
	return h.finish(meta)
}

// placement is the consumer of cluster i: every stride-th cluster, up to
// --real-clusters of them, goes to the real agents in turn, the others to
// the simulated agents in turn.
func (h *harness) placement(i int) string {
	sim := h.simulated()
	if len(h.real) == 0 {
		return sim[i%len(sim)]
	}
	stride := max(1, h.o.clusters/h.o.realClusters)
	if i%stride == 0 && i/stride < h.o.realClusters {
		return h.real[(i/stride)%len(h.real)]
	}
	return sim[i%len(sim)]
}

// simulated are the consumers of simulated agents.
func (h *harness) simulated() []string { return h.consumers[:len(h.consumers)-len(h.real)] }

// startReal starts the kube-apiserver watch and the real agents.
func (h *harness) startReal(ctx context.Context) error {
	var err error
	if h.kube, err = startKubeWatch(ctx, h.o.kubeconfig, h.recs[check.Files.Kube]); err != nil {
		return err
	}
	fmt.Printf("soak: starting %d real maestro agent(s) on the kube-apiserver: %v\n", len(h.real), h.real)
	return realAgents{h.o.hackDir}.start(h.real...)
}

// soak publishes, makes the faults and drains; it returns the run's meta.
func (h *harness) soak(ctx context.Context) (check.Meta, error) {
	o := h.o
	rate := o.load * o.capacity
	period := max(time.Duration(float64(o.clusters)/rate*float64(time.Second)), o.minPeriod)
	h.start = time.Now()
	end := h.start.Add(o.duration)
	meta := check.Meta{Start: h.start, Clusters: o.clusters, Seed: o.seed, RatePerS: float64(o.clusters) / period.Seconds(),
		Broken: o.broken, BundleSuffixes: []string{"-setup", "-validation"}, GenerationBundle: "-validation"}
	fmt.Printf("soak: %d clusters, %d consumers (%d on real agents), each resent every %v (%.0f events/s; capacity %.0f x %.0f%%), %v, seed %d, two replicas on %s\n",
		o.clusters, len(h.consumers), len(h.real), period, meta.RatePerS, o.capacity, 100*o.load, o.duration, o.seed, h.queue)

	sctx, stopSampling := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); sampleEvery(sctx, o.sampleEvery, h.replicas, h.recs[check.Files.Samples]) }()

	f := &faulter{h: h, rec: h.recs[check.Files.Faults], rng: rand.New(rand.NewPCG(uint64(o.seed), 0xfa17))}
	wg.Add(1)
	go func() { defer wg.Done(); h.deliveries.run(sctx, f) }()
	if h.kube != nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			(&remedy{h: h, f: f, gone: map[string]time.Time{}, restarts: map[string]int{}}).run(sctx)
		}()
	}
	// Faults from the end of the warm-up (a minute, or a quarter of a short
	// run) to 30 s before the last round.
	from := min(time.Minute, o.duration/4)
	plan := schedule(o.seed, o.faults, from, max(o.duration-period-30*time.Second, from+time.Second))
	for _, p := range plan {
		fmt.Printf("soak: planned %-17s at +%v\n", p.name, p.at.Round(time.Second))
	}
	fctx, stopFaults := context.WithCancel(ctx)
	var fwg sync.WaitGroup
	for _, p := range plan {
		fwg.Add(1)
		go func() {
			defer fwg.Done()
			select {
			case <-fctx.Done():
			case <-time.After(time.Until(h.start.Add(p.at))):
				f.do(fctx, p.name)
			}
		}()
	}
	pub := &publisher{url: o.rabbitURL, exchange: h.exchange, rec: h.recs[check.Files.Published], log: h.log}
	if err := pub.connect(); err != nil {
		stopFaults()
		stopSampling()
		return meta, err
	}
	defer pub.close()
	// The final drain: a generation bump just before the last round, and an
	// API outage overlapping it; then the publisher stops.
	pub.rounds(ctx, h.api, period, end, func() {
		f.do(ctx, "recreation-wave")
		f.do(ctx, "api-503")
	})
	meta.PublishEnd = time.Now()
	fmt.Printf("soak: last round sent (%d events); draining (at most %v): resending clusters reported not ready, and those behind their generation once left alone for %v\n", pub.sent, o.drain, drainQuiet)
	fwg.Wait() // faults planned before the last round are all done
	stopFaults()
	drainEnd := time.Now().Add(o.drain)
	resent := pub.drainResend(ctx, h.api, max(period, 5*time.Second), drainEnd, func() (int, error) {
		held, err := queueHeld(h.queue)
		total := 0
		for _, n := range held {
			total += n
		}
		return total, err
	})
	h.drain(ctx, drainEnd)
	fmt.Printf("soak: drained; %d events resent\n", resent)
	stopSampling()
	wg.Wait()
	for _, r := range h.replicas {
		if s, err := r.sample(); err == nil {
			h.recs[check.Files.Samples].add(s)
		}
		req, refused, creates := r.totals()
		meta.MaestroRequests += req
		meta.CreatesRefused += refused
		meta.Creates += creates
	}
	peak, at := h.deliveries.queuePeak()
	meta.MaestroSpecQueuePeak, meta.MaestroSpecQueuePeakAt = peak, at
	meta.End = time.Now()
	return meta, nil
}

// drain waits until the API has answered nothing for drainQuiet, or
// deadline.
func (h *harness) drain(ctx context.Context, deadline time.Time) {
	for time.Now().Before(deadline) && ctx.Err() == nil {
		if time.Since(h.api.lastRequest()) > drainQuiet && time.Now().UnixNano() > h.api.down.Load() {
			return
		}
		time.Sleep(time.Second)
	}
}

// finish records what RabbitMQ still holds and dead-lettered and what
// Maestro holds, checks the histories and writes the results.
func (h *harness) finish(meta check.Meta) (bool, error) {
	o := h.o
	held, err := queueHeld(h.queue)
	if err != nil {
		return false, fmt.Errorf("queues at the end: %w", err)
	}
	meta.QueueHeld = held
	if err := deadLetters(o.rabbitURL, h.queue+".dead-letter", filepath.Join(o.out, check.Files.DeadLetters)); err != nil {
		return false, fmt.Errorf("dead letters: %w", err)
	}
	if err := listBundles(o.maestroREST, h.sourceID, filepath.Join(o.out, check.Files.Bundles)); err != nil {
		return false, fmt.Errorf("maestro bundles: %w", err)
	}
	if h.kube != nil {
		if err := h.kubeMeta(&meta); err != nil {
			return false, err
		}
	}
	for _, r := range h.recs {
		if err := r.close(); err != nil {
			return false, err
		}
	}
	b, _ := json.MarshalIndent(meta, "", "  ")
	if err := os.WriteFile(filepath.Join(o.out, check.Files.Meta), b, 0o644); err != nil {
		return false, err
	}
	hist, err := check.Load(o.out)
	if err != nil {
		return false, err
	}
	rep := check.Check(hist)
	return rep.Pass(), writeResults(o.out, hist, rep, os.Stdout)
}

// kubeMeta lists the kube-apiserver at the end and names the clusters the
// real agents serve, for the checker.
func (h *harness) kubeMeta(meta *check.Meta) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	at, err := h.kube.list(ctx)
	if err != nil {
		return fmt.Errorf("kube-apiserver: %w", err)
	}
	meta.KubeListedAt, meta.KubeKinds, meta.KubeGenerationKind = at, kubeKinds, "Job"
	for _, c := range h.api.snapshot() {
		if contains(h.real, c.consumer) {
			meta.KubeClusters = append(meta.KubeClusters, c.id)
		}
	}
	return nil
}

// writeConfigs writes the example's configs for this run into dir, each
// cluster placed on the consumer the API names for it
// (stacktest.WriteFleetConfigs).
func writeConfigs(o *options, dir, apiURL, sourceID, topic string) (stacktest.Files, error) {
	adapterCfg := stacktest.AdapterConfig{
		Name: sourceID, APIURL: apiURL, APITimeout: 10 * time.Second, APIRetryAttempts: 3, APIRetryBackoff: "exponential",
		SubscriptionID: "soak", Topic: topic,
		MaestroGRPC: o.maestroGRPC, MaestroREST: o.maestroREST, SourceID: sourceID, MaestroTimeout: 20 * time.Second,
		MaestroViewMaxAge: o.viewMaxAge, MaestroViewOff: o.viewMaxAge == 0,
	}
	// Deliveries cover an API outage and a Maestro restart (about a minute
	// before its source client publishes again: docs/reliability.md). The
	// first redelivery waits the default min_backoff (10s, Sentinel's
	// resend period), so the retry-storm figure is the defaults'; the
	// backoff stops at 15s so that the drain's 20 s of silence means done.
	brokerCfg := stacktest.RabbitMQConfig{
		URL: o.rabbitURL, Exchange: topic, Prefetch: 64,
		MaxDeliveries: 20, MinBackoff: 10 * time.Second, MaxBackoff: 15 * time.Second,
		Parallelism: 16, ShutdownTimeout: 20 * time.Second,
	}
	return stacktest.WriteFleetConfigs(o.example, dir, adapterCfg, brokerCfg)
}
