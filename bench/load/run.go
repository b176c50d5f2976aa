package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/bundle-adapter/bundle-adapter/internal/logfmt"
	"github.com/bundle-adapter/bundle-adapter/internal/stacktest"
)

// harness holds what a run started.
type harness struct {
	o          *options
	log        *slog.Logger
	api        *recordingAPI
	drv        *driver
	ad         adapterUnderTest
	maestroPID int
	agentsPID  int // 0 when the agents run in the harness's process
	// collectAgents collects the agents' heap (agentsProcess.collect; a
	// runtime.GC with --agents inproc), before the measured phases.
	collectAgents func() error
	sourceID      string

	// For the issue-34 phases (fleet.go): the run's config files, the agent
	// of the one consumer, the second replica, and what adapters killed or
	// stopped mid-run counted (their last metrics and CPU, so a phase's
	// counters stay monotonic across a restart).
	files          stacktest.Files
	oneAgent       *agentsProcess
	extra          []adapterUnderTest
	retired        stacktest.Metrics
	retiredCPU     float64
	retiredRSSPeak float64
}

// snapshot is the counters read at the start and end of a phase.
type snapshot struct {
	at         time.Time
	gcs        uint32 // the harness's collections (runtime.MemStats.NumGC)
	metrics    stacktest.Metrics
	adapterCPU float64
	maestroCPU float64
	selfCPU    float64
	agentsCPU  float64
	procs      map[int]procCPU
	pgCPU      map[int]float64
	rabbitCPU  map[int]float64
	pgbCPU     map[int]float64
	machine    machineCPU
	apiConns   int64
	apiCalls   int
	pgSessions float64
}

func (h *harness) snapshot() (snapshot, error) {
	s := snapshot{at: time.Now()}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	s.gcs = ms.NumGC
	var err error
	if s.metrics, s.adapterCPU, err = h.adapterCounters(); err != nil {
		return s, err
	}
	if h.maestroPID > 0 {
		s.maestroCPU, _ = cpuSeconds(h.maestroPID)
	}
	s.selfCPU, _ = cpuSeconds(os.Getpid())
	if h.agentsPID > 0 {
		s.agentsCPU, _ = cpuSeconds(h.agentsPID)
	}
	s.procs = allProcesses()
	s.pgCPU = cpuByName(s.procs, "postgres")
	s.rabbitCPU = cpuByName(s.procs, "beam.smp")
	s.pgbCPU = cpuByName(s.procs, "pgbouncer")
	s.machine, _ = readMachineCPU()
	if h.o.maestroDB != "" {
		s.pgSessions, _ = pgSessions(context.Background(), h.o.maestroDB)
	}
	s.apiConns = h.api.Connections()
	gets, puts, _ := h.api.counts()
	s.apiCalls = gets + puts
	return s, nil
}

// phase is the measurement of one phase.
type phase struct {
	Name          string  `json:"name"`
	Events        int     `json:"events"`
	Lost          int     `json:"lost"`
	Failed        int     `json:"failed"`
	Seconds       float64 `json:"seconds"`
	EventsPerS    float64 `json:"events_per_s"`
	OfferedPerS   float64 `json:"offered_per_s,omitempty"`
	P50MS         float64 `json:"latency_p50_ms"`
	P99MS         float64 `json:"latency_p99_ms"`
	MaestroReads  float64 `json:"maestro_reads"`
	MaestroWrites float64 `json:"maestro_writes"`
	// MaestroRequests counts every Maestro request of the adapter
	// (--maestro-requests-metric, all labels); MaestroRequestsSeen is false
	// when the adapter does not expose that metric.
	MaestroRequests     float64        `json:"maestro_requests"`
	MaestroRequestsSeen bool           `json:"maestro_requests_seen"`
	Creates             float64        `json:"creates"`
	AdapterCPU          float64        `json:"adapter_cpu_seconds"`
	MaestroCPU          float64        `json:"maestro_cpu_seconds"`
	HarnessCPU          float64        `json:"harness_cpu_seconds"`
	AgentsCPU           float64        `json:"agents_cpu_seconds"` // the agents process's; 0 with --agents inproc (then in HarnessCPU)
	PostgresCPU         float64        `json:"postgres_cpu_seconds"`
	RabbitMQCPU         float64        `json:"rabbitmq_cpu_seconds"`
	PgBouncerCPU        float64        `json:"pgbouncer_cpu_seconds"`
	BusyCores           float64        `json:"machine_busy_cores"`
	OtherCores          float64        `json:"other_busy_cores"`
	Others              string         `json:"other_processes,omitempty"`
	PGSessions          float64        `json:"postgres_sessions_opened"`
	APICalls            int            `json:"api_calls"`
	APIConns            int64          `json:"api_connections_opened"`
	Available           int            `json:"statuses_available"`
	Outcomes            map[string]int `json:"bundle_outcomes"`
	BadStatuses         int            `json:"bad_statuses"`
	FirstProblem        string         `json:"first_problem,omitempty"`
	// AdapterGCs and AdapterGCPauseMS are the adapter's collections in the
	// phase and their stop-the-world pauses (go_gc_duration_seconds);
	// HarnessGCs the harness's own, whose API timestamps the statuses.
	AdapterGCs       float64 `json:"adapter_gcs"`
	AdapterGCPauseMS float64 `json:"adapter_gc_pause_ms"`
	HarnessGCs       uint32  `json:"harness_gcs"`
	// Timeline is the latencies by second of publication (timeline.go).
	Timeline []second `json:"timeline,omitempty"`
}

// gcPauses is the Go collector's summary of stop-the-world pauses.
const gcPauses = "go_gc_duration_seconds"

func (h *harness) measure(name string, fn func() *tally) (*phase, error) {
	before, err := h.snapshot()
	if err != nil {
		return nil, err
	}
	stop := h.progress(name)
	t := fn()
	stop()
	after, err := h.snapshot()
	if err != nil {
		return nil, err
	}
	p := &phase{Name: name, Events: t.reported(), Lost: t.lost, Failed: t.failed,
		Seconds: t.end.Sub(t.start).Seconds(), P50MS: t.percentile(50), P99MS: t.percentile(99),
		MaestroReads:        after.metrics.MaestroReads() - before.metrics.MaestroReads(),
		MaestroWrites:       after.metrics.MaestroWrites() - before.metrics.MaestroWrites(),
		MaestroRequests:     after.metrics.Sum(h.o.requestsMetric) - before.metrics.Sum(h.o.requestsMetric),
		MaestroRequestsSeen: len(after.metrics[h.o.requestsMetric]) > 0,
		Creates:             after.metrics.MaestroCreates() - before.metrics.MaestroCreates(),
		AdapterCPU:          after.adapterCPU - before.adapterCPU,
		MaestroCPU:          after.maestroCPU - before.maestroCPU,
		HarnessCPU:          after.selfCPU - before.selfCPU,
		AgentsCPU:           after.agentsCPU - before.agentsCPU,
		PostgresCPU:         cpuDelta(before.pgCPU, after.pgCPU),
		RabbitMQCPU:         cpuDelta(before.rabbitCPU, after.rabbitCPU),
		PgBouncerCPU:        cpuDelta(before.pgbCPU, after.pgbCPU),
		BusyCores:           busyCores(before.machine, after.machine, runtime.NumCPU()),
		APICalls:            after.apiCalls - before.apiCalls, APIConns: after.apiConns - before.apiConns,
		PGSessions: after.pgSessions - before.pgSessions,
		Available:  t.available, Outcomes: t.ops, BadStatuses: t.bad, FirstProblem: t.firstBad,
		Timeline:         t.timeline(),
		AdapterGCs:       after.metrics.Sum(gcPauses+"_count") - before.metrics.Sum(gcPauses+"_count"),
		AdapterGCPauseMS: 1000 * (after.metrics.Sum(gcPauses+"_sum") - before.metrics.Sum(gcPauses+"_sum")),
		HarnessGCs:       after.gcs - before.gcs,
	}
	if t.firstErr != nil {
		p.FirstProblem = t.firstErr.Error()
	}
	if p.Seconds > 0 {
		p.EventsPerS = float64(p.Events) / p.Seconds
	}
	// CPU the run does not account for: other work on the machine.
	if wall := after.at.Sub(before.at).Seconds(); wall > 0 {
		own := p.AdapterCPU + p.MaestroCPU + p.HarnessCPU + p.AgentsCPU + p.PostgresCPU + p.RabbitMQCPU + p.PgBouncerCPU
		if h.o.adapterMode == "inproc" {
			own -= p.AdapterCPU // the harness's CPU includes it
		}
		p.OtherCores = max(0, p.BusyCores-own/wall)
		p.Others = h.describeOthers(before, after, wall)
	}
	h.log.Info("phase done", "phase", name, "events", p.Events, "seconds", fmt.Sprintf("%.1f", p.Seconds),
		"events_per_s", fmt.Sprintf("%.1f", p.EventsPerS), "p50_ms", fmt.Sprintf("%.1f", p.P50MS),
		"p99_ms", fmt.Sprintf("%.1f", p.P99MS), "lost", p.Lost, "failed", p.Failed, "outcomes", p.Outcomes)
	return p, nil
}

// describeOthers names the biggest CPU users outside the run, in cores,
// and what processes that exited meanwhile (builds, tests) must have used.
func (h *harness) describeOthers(before, after snapshot, wall float64) string {
	ours := func(pid int, comm string) bool {
		return h.isAdapter(pid) || pid == h.maestroPID || pid == os.Getpid() || (h.agentsPID > 0 && pid == h.agentsPID) || comm == "postgres" || comm == "beam.smp" || comm == "pgbouncer"
	}
	others := othersCPU(before.procs, after.procs, ours)
	names := make([]string, 0, len(others))
	seen := 0.0
	for n, v := range others {
		names = append(names, n)
		seen += v
	}
	sort.Slice(names, func(i, j int) bool { return others[names[i]] > others[names[j]] })
	var parts []string
	for _, n := range names[:min(4, len(names))] {
		if c := others[n] / wall; c >= 0.01 {
			parts = append(parts, fmt.Sprintf("%s %.2f", n, c))
		}
	}
	busy := busyCores(before.machine, after.machine, runtime.NumCPU()) * wall
	gone := busy - seen - (after.adapterCPU - before.adapterCPU) - (after.maestroCPU - before.maestroCPU) -
		(after.selfCPU - before.selfCPU) - (after.agentsCPU - before.agentsCPU) - cpuDelta(before.pgCPU, after.pgCPU) - cpuDelta(before.rabbitCPU, after.rabbitCPU) -
		cpuDelta(before.pgbCPU, after.pgbCPU)
	if h.o.adapterMode == "inproc" {
		gone += after.adapterCPU - before.adapterCPU
	}
	if c := gone / wall; c >= 0.01 {
		parts = append(parts, fmt.Sprintf("exited processes (such as PostgreSQL backends of closed connections) %.2f", c))
	}
	return strings.Join(parts, ", ")
}

// run starts what the harness owns, runs the phases and stops everything.
func run(ctx context.Context, o *options, log *slog.Logger) (*results, error) {
	res := &results{PhasesRun: o.phases.String(), Mode: o.mode, MaestroRequestsMetric: o.requestsMetric, Clusters: o.clusters, Consumers: o.consumers, Window: o.window,
		Parallelism: o.parallelism, Prefetch: o.prefetch, AdapterMode: o.adapterMode, AgentsMode: o.agentsMode,
		Cores: runtime.NumCPU(), Started: time.Now().UTC().Format(time.RFC3339)}

	log.Info("measuring the fingerprint of a 50 KB bundle")
	fc, err := measureFingerprint50KB()
	if err != nil {
		return nil, fmt.Errorf("fingerprint: %w", err)
	}
	res.FingerprintBytes, res.Fingerprint50KBMS, res.RenderFingerprint50KBMS = fc.bytes, fc.fingerprintMS, fc.renderFingerprintsMS

	runID := fmt.Sprintf("bench%d", time.Now().Unix())
	h := &harness{o: o, log: log, sourceID: runID}
	if o.maestroPIDFile != "" {
		if h.maestroPID, err = readPIDFile(o.maestroPIDFile); err != nil {
			return nil, fmt.Errorf("maestro PID file: %w", err)
		}
	}
	consumers := make([]string, o.consumers)
	for i := range consumers {
		consumers[i] = fmt.Sprintf("bench-c%d", i)
	}
	if err := stacktest.RegisterConsumers(ctx, o.maestroREST, consumers); err != nil {
		return nil, err
	}
	stopAgents, err := h.startAgents(ctx, consumers, filepath.Join(o.runDir, runID+"-agents.log"))
	if err != nil {
		return nil, err
	}
	defer stopAgents()
	if h.api, err = startAPI(consumers, o.clusters); err != nil {
		return nil, err
	}
	defer h.api.close()

	topic := runID
	dir := filepath.Join(o.runDir, runID)
	files, err := writeConfigs(o, dir, h.api.URL, h.sourceID, topic)
	if err != nil {
		return nil, fmt.Errorf("write configs: %w", err)
	}
	h.files = files
	if o.phases[phaseOneConsumer] {
		stopOne, err := h.startOneConsumer(ctx, runID)
		if err != nil {
			return nil, err
		}
		defer stopOne()
	}
	log.Info("starting the adapter", "mode", o.adapterMode, "configs", dir)
	if h.ad, err = startAdapter(ctx, o, files, log); err != nil {
		return nil, err
	}
	defer func() {
		if h.ad != nil {
			_ = h.ad.stop()
		}
		if err := stacktest.DropRabbitMQ(o.rabbitURL, topic, topic+"-bench"); err != nil {
			log.Warn("could not delete the run's RabbitMQ exchange and queues", "topic", topic, "error", err)
		}
	}()
	if h.drv, err = newDriver(o.rabbitURL, topic, runID, o.publishers, h.api, o.eventTimeout); err != nil {
		return nil, err
	}
	defer h.drv.close()

	if err := h.phases(ctx, res); err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if pid := h.ad.pid(); pid > 0 {
		res.AdapterRSSMB, res.AdapterRSSPeakMB, _ = memoryMB(pid)
		res.AdapterRSSPeakMB = max(res.AdapterRSSPeakMB, h.retiredRSSPeak)
	}
	if h.agentsPID > 0 {
		_, res.AgentsRSSPeakMB, _ = memoryMB(h.agentsPID)
	}
	if res.BundlesTracked, err = bundlesTracked(ctx, o.maestroREST, h.sourceID); err != nil {
		return nil, fmt.Errorf("count bundles: %w", err)
	}
	stopErr := h.ad.stop()
	h.ad = nil
	if stopErr != nil {
		log.Warn("adapter stop", "error", stopErr)
	}
	res.finish()
	return res, nil
}

// collect collects the agents' heap before the measured phases (see
// agentsProcess.collect) and logs how long it took; a failure is logged
// and the run goes on.
func (h *harness) collect() {
	if h.collectAgents == nil {
		return
	}
	start := time.Now()
	if err := h.collectAgents(); err != nil {
		h.log.Warn("the agents' heap was not collected before the measured phases", "error", err)
		return
	}
	h.log.Info("collected the agents' heap before the measured phases", "took", time.Since(start).Round(time.Millisecond).String())
}

// startAgents starts one simulated agent per consumer, in a child process
// (--agents process, logging to logPath) or in this one (--agents inproc).
func (h *harness) startAgents(ctx context.Context, consumers []string, logPath string) (stop func(), err error) {
	if h.o.agentsMode == "inproc" {
		libLog := slog.New(slog.NewTextHandler(os.Stderr, logfmt.Options(slog.LevelError)))
		agents, err := startAgents(ctx, h.o.maestroBroker, consumers, 0, libLog)
		if err != nil {
			return nil, err
		}
		h.collectAgents = func() error { runtime.GC(); return nil }
		return func() { stopAgents(agents) }, nil
	}
	if err := os.MkdirAll(filepath.Dir(logPath), 0o755); err != nil {
		return nil, err
	}
	p, err := startAgentsProcess(ctx, h.o.maestroBroker, consumers, 0, logPath)
	if err != nil {
		return nil, err
	}
	h.agentsPID = p.pid()
	h.collectAgents = func() error { return p.collect(time.Minute) }
	h.log.Info("simulated agents started in their own process", "pid", h.agentsPID, "consumers", len(consumers), "log", logPath)
	return p.stop, nil
}

// phases runs create, settle, unchanged and latency.
func (h *harness) phases(ctx context.Context, res *results) error {
	o := h.o
	n := o.clusters
	createBound := time.Minute + time.Duration(float64(2*n)/o.createsPerSecLo*float64(time.Second))
	h.log.Info("create phase: one event per cluster, 2 bundles each", "clusters", n, "bound", createBound)
	create, err := h.measure("create", func() *tally {
		return h.drv.closedLoop(ctx, n, 0, n, o.window, time.Now().Add(createBound))
	})
	if err != nil {
		return err
	}
	res.Phases = append(res.Phases, create)
	if ctx.Err() != nil {
		return nil
	}

	res.SettleSeconds, res.Settled = h.settle(ctx, create.Creates)
	if o.phases[phaseOneConsumer] {
		if err := h.oneConsumerPhase(ctx, res); err != nil {
			return err
		}
	}
	res.WarmEvents, res.WarmSeconds = h.warm(ctx, res, n)
	h.collect()

	h.log.Info("unchanged phase: events for every cluster again and again", "for", o.unchangedFor, "window", o.window)
	unchanged, err := h.measure("unchanged", func() *tally {
		return h.drv.closedLoop(ctx, n, 0, 100*n, o.window, time.Now().Add(o.unchangedFor))
	})
	if err != nil {
		return err
	}
	res.Phases = append(res.Phases, unchanged)
	if ctx.Err() != nil || unchanged.EventsPerS == 0 {
		return nil
	}

	rate := min(float64(n)/o.sentinelPeriod.Seconds(), 0.8*unchanged.EventsPerS)
	if o.phases[phaseBase] {
		if err := h.basePaced(ctx, res, rate, unchanged.EventsPerS); err != nil {
			return err
		}
	}
	return h.fleetPhases(ctx, res, rate)
}

// basePaced runs the latency phase and the --latency-loads ones.
func (h *harness) basePaced(ctx context.Context, res *results, rate, capacity float64) error {
	o, n := h.o, h.o.clusters
	if err := h.pacedPhase(ctx, res, "latency", rate); err != nil {
		return err
	}
	for _, f := range o.latencyLoads {
		if ctx.Err() != nil {
			return nil
		}
		name := fmt.Sprintf("latency-%.0f%%", 100*f)
		if err := h.pacedPhase(ctx, res, name, min(float64(n)/o.sentinelPeriod.Seconds(), f*capacity)); err != nil {
			return err
		}
	}
	return nil
}

// pacedPhase sends one event per cluster at rate events/s (an open loop,
// as Sentinel does) for at most --latency-for and records it as name.
func (h *harness) pacedPhase(ctx context.Context, res *results, name string, rate float64) error {
	n := h.o.clusters
	h.log.Info("paced phase: one event per cluster", "phase", name, "events_per_s", fmt.Sprintf("%.0f", rate), "bound", h.o.latencyFor)
	p, err := h.measure(name, func() *tally {
		return h.drv.paced(ctx, n, 0, n, rate, time.Now().Add(h.o.latencyFor), min(max(2*h.o.window, n/2), 2000))
	})
	if err != nil {
		return err
	}
	p.OfferedPerS = rate
	res.Phases = append(res.Phases, p)
	return nil
}

// warm sends one event per cluster, as Sentinel's first resend after the
// create: the round after the creates, recorded as the phase
// "after-creates" (its Maestro requests per event show whether the agents'
// statuses of the adapter's own creates made the view's entries, issue 47,
// or each event read). The unchanged phase then measures the steady state
// that most of HyperFleet's traffic is. Bounded by 60s +
// clusters/--min-warm-events-per-s; it returns the events reported and the
// seconds taken, and warns when the pass did not reach every cluster (the
// unchanged phase then reads Maestro for the rest).
func (h *harness) warm(ctx context.Context, res *results, n int) (int, float64) {
	bound := time.Minute + time.Duration(float64(n)/h.o.warmPerSecLo*float64(time.Second))
	h.log.Info("warm-up: one event per cluster, the round after the creates (phase after-creates)", "clusters", n, "bound", bound)
	var t *tally
	p, err := h.measure("after-creates", func() *tally {
		t = h.drv.closedLoop(ctx, n, 0, n, h.o.window, time.Now().Add(bound))
		return t
	})
	if err != nil {
		h.log.Warn("the round after the creates was not recorded", "error", err)
	} else {
		res.Phases = append(res.Phases, p)
	}
	if t == nil {
		return 0, 0
	}
	took := t.end.Sub(t.start)
	if got := t.reported(); got < n {
		h.log.Warn("warm-up did not reach every cluster: the unchanged phase will read Maestro for the rest",
			"reported", got, "clusters", n, "took", took.Round(time.Millisecond).String())
	} else {
		h.log.Info("warm-up done", "took", took.Round(time.Millisecond).String())
	}
	if age := h.o.viewMaxAge; age > 0 && took > age {
		// The first clusters' entries expire before the unchanged phase
		// reaches them again (a hit does not refresh an entry).
		h.log.Warn("warm-up took longer than the view's max age: the unchanged phase will read Maestro for the clusters warmed first; pass a longer --view-max-age",
			"took", took.Round(time.Second).String(), "view_max_age", age)
	}
	return t.reported(), took.Seconds()
}

// settle waits until Maestro is idle (under 0.05 CPU-seconds in each of
// two seconds in a row): the agents' status reports of the bundles just
// created are stored and streamed (each is a Maestro write and a stream
// event the adapter's view takes). Bounded by --settle-for, by default 90s
// + 5ms per bundle created (100,000 bundles: about 9 minutes); without
// Maestro's PID it waits 5s. It returns the seconds waited and whether
// Maestro went idle within the bound; a run that did not settle measures
// the create phase's aftermath, and says so.
func (h *harness) settle(ctx context.Context, created float64) (float64, bool) {
	start := time.Now()
	if h.maestroPID == 0 {
		sleepCtx(ctx, 5*time.Second)
		return time.Since(start).Seconds(), false
	}
	bound := h.o.settleFor
	if bound <= 0 {
		bound = 90*time.Second + time.Duration(created*float64(5*time.Millisecond))
	}
	h.log.Info("settle: waiting for Maestro to go idle", "bound", bound)
	quiet, lastLog := 0, start
	for time.Since(start) < bound && ctx.Err() == nil && quiet < 2 {
		a, _ := cpuSeconds(h.maestroPID)
		sleepCtx(ctx, time.Second)
		b, _ := cpuSeconds(h.maestroPID)
		if b-a < 0.05 {
			quiet++
		} else {
			quiet = 0
		}
		if time.Since(lastLog) >= 30*time.Second {
			lastLog = time.Now()
			h.log.Info("settle: Maestro still busy", "waited", time.Since(start).Round(time.Second), "maestro_cores", fmt.Sprintf("%.2f", b-a))
		}
	}
	waited := time.Since(start)
	if quiet < 2 {
		h.log.Warn("settle: Maestro still busy at the bound; the next phases measure the create phase's aftermath",
			"waited", waited.Round(100*time.Millisecond))
		return waited.Seconds(), false
	}
	h.log.Info("settled: Maestro idle", "waited", waited.Round(100*time.Millisecond))
	return waited.Seconds(), true
}

// progress logs, every 30 s until stop is called, how many statuses the
// API received since the phase began and at what rate, so a long phase (the
// create at 50,000 clusters takes minutes) is never silent.
func (h *harness) progress(phase string) (stop func()) {
	_, base, _ := h.api.counts()
	start := time.Now()
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(30 * time.Second)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				_, puts, _ := h.api.counts()
				elapsed := time.Since(start)
				h.log.Info("phase in progress", "phase", phase, "statuses", puts-base,
					"per_s", fmt.Sprintf("%.0f", float64(puts-base)/elapsed.Seconds()), "elapsed", elapsed.Round(time.Second))
			}
		}
	}()
	return func() { close(done); <-finished }
}

func sleepCtx(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

func startAdapter(ctx context.Context, o *options, f stacktest.Files, log *slog.Logger) (adapterUnderTest, error) {
	if o.adapterMode == "inproc" {
		return startInProcess(ctx, f, o.cpuProfile, o.memProfile, log)
	}
	return startBinary(ctx, o.adapterBin, f, "")
}
