package main

import (
	"github.com/bundle-adapter/bundle-adapter/maestroclient"

	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/bundle-adapter/bundle-adapter/bench/internal/runresults"
	"github.com/bundle-adapter/bundle-adapter/internal/stacktest"
)

// The phases --phases selects. Create, settle, warm-up and unchanged always
// run: every other phase needs the bundles, the view and the capacity.
const (
	phaseBase        = "base"         // latency and --latency-loads
	phaseOneConsumer = "one-consumer" // creates to one consumer (issue 34)
	phaseSteady      = "steady"       // paced, over --steady-ages view max ages
	phaseRestart     = "restart"      // paced, across a SIGKILL and restart
	phaseReplicas    = "replicas"     // unchanged, saturating, one then two adapters
)

var fleetPhaseNames = []string{phaseOneConsumer, phaseSteady, phaseRestart, phaseReplicas}

// oneConsumer is the consumer every cluster of the one-consumer phase names.
const oneConsumer = "bench-one"

// phaseSet is --phases.
type phaseSet map[string]bool

// parsePhases reads --phases: fleet stands for the four issue-34 phases,
// all for those and base. Unknown names are kept for validate to refuse.
func parsePhases(list string) phaseSet {
	s := phaseSet{}
	for _, p := range strings.Split(list, ",") {
		switch p = strings.TrimSpace(p); p {
		case "":
		case "fleet":
			for _, f := range fleetPhaseNames {
				s[f] = true
			}
		case "all":
			s[phaseBase] = true
			for _, f := range fleetPhaseNames {
				s[f] = true
			}
		default:
			s[p] = true
		}
	}
	return s
}

// String lists the phases in the order they run.
func (s phaseSet) String() string {
	var out []string
	for _, p := range append([]string{phaseBase}, fleetPhaseNames...) {
		if s[p] {
			out = append(out, p)
		}
	}
	return strings.Join(out, ",")
}

// validatePhases checks --phases and the flags of the phases it names, and
// defaults --one-consumer-clusters to --clusters.
func (o *options) validatePhases() error {
	known := append([]string{phaseBase}, fleetPhaseNames...)
	for p := range o.phases {
		if !slices.Contains(known, p) {
			return fmt.Errorf("--phases: unknown phase %q (known: %s, fleet, all)", p, strings.Join(known, ", "))
		}
	}
	switch {
	case (o.phases[phaseRestart] || o.phases[phaseReplicas]) && o.adapterMode != "binary":
		return errors.New("--phases restart and replicas need --adapter binary (they kill and start adapter processes)")
	case o.phases[phaseOneConsumer] && o.oneConsumerAgent != "simulated" && o.oneConsumerAgent != "real":
		return fmt.Errorf("--one-consumer-agent must be simulated or real, not %q", o.oneConsumerAgent)
	case o.oneConsumerClusters < 0 || o.oneConsumerApplyRate < 0 || o.viewPageSize < 0 || o.steadyAges < 0:
		return errors.New("--one-consumer-clusters and --one-consumer-apply-rate must not be negative, --view-page-size and --steady-ages must not be negative")
	case o.phases[phaseRestart] && o.restartFor < o.restartAfter+70*time.Second:
		return errors.New("--restart-for must be at least --restart-after + 70s (the minute after the restart is measured)")
	case o.phases[phaseOneConsumer] && o.agentsMode != "process":
		return errors.New("--phases one-consumer needs --agents process (its agent reports what it applied)")
	}
	if o.oneConsumerClusters == 0 {
		o.oneConsumerClusters = o.clusters
	}
	if o.viewPageSize == 0 {
		o.viewPageSize = maestroclient.DefaultListPageSize
	}
	if o.steadyAges == 0 {
		o.steadyAges = 2.5
	}
	return nil
}

// startOneConsumer registers the one consumer, starts its simulated agent
// at --one-consumer-apply-rate in a process of its own, and places the
// one-consumer clusters (after the run's) on it.
func (h *harness) startOneConsumer(ctx context.Context, runID string) (stop func(), err error) {
	o := h.o
	if err := stacktest.RegisterConsumers(ctx, o.maestroREST, []string{oneConsumer}); err != nil {
		return nil, err
	}
	for i := range o.oneConsumerClusters {
		h.api.place(o.clusters+i, oneConsumer)
	}
	if o.oneConsumerAgent == "real" {
		h.log.Info("one consumer served by a real agent started outside the harness (hack/bench.sh: hack/agent.sh)", "consumer", oneConsumer)
		return func() {}, nil
	}
	logPath := filepath.Join(o.runDir, runID+"-one-consumer-agent.log")
	p, err := startAgentsProcess(ctx, o.maestroBroker, []string{oneConsumer}, o.oneConsumerApplyRate, logPath)
	if err != nil {
		return nil, err
	}
	h.oneAgent = p
	h.log.Info("one consumer's simulated agent started", "consumer", oneConsumer, "apply_rate", applyRate(o.oneConsumerApplyRate),
		"pid", p.pid(), "log", logPath)
	return p.stop, nil
}

// oneConsumerPhase creates the bundles of --one-consumer-clusters clusters,
// every one placed on the same consumer (as HyperFleet's deployed adapters
// place every cluster on one management cluster), with the closed loop of
// the create phase; then waits until the consumer's agent has applied them
// and Maestro is idle again.
func (h *harness) oneConsumerPhase(ctx context.Context, res *results) error {
	o := h.o
	n, m := o.clusters, o.oneConsumerClusters
	bound := time.Minute + time.Duration(float64(bundlesPerClusterEvt*m)/o.createsPerSecLo*float64(time.Second))
	before, err := h.appliedOnOne(ctx)
	if err != nil {
		return err
	}
	x0 := oneConsumerResult{Agent: o.oneConsumerAgent, ApplyRatePerS: o.oneConsumerApplyRate}
	h.log.Info("one-consumer phase: every cluster's bundles to one consumer", "consumer", oneConsumer, "clusters", m,
		"agent", x0.agentLabel(), "bound", bound)
	start := time.Now()
	p, err := h.measure(phaseOneConsumer, func() *tally {
		return h.drv.closedLoop(ctx, n+m, n, m, o.window, time.Now().Add(bound))
	})
	if err != nil {
		return err
	}
	res.Phases = append(res.Phases, p)
	x := &oneConsumerResult{Clusters: m, Consumer: oneConsumer, Agent: o.oneConsumerAgent, ApplyRatePerS: o.oneConsumerApplyRate,
		Creates: p.Creates, Seconds: p.Seconds, P50MS: p.P50MS, P99MS: p.P99MS, Lost: p.Lost, BudgetMetric: o.budgetMetric}
	if p.Seconds > 0 {
		x.CreatesPerS = p.Creates / p.Seconds
	}
	if mt, err := stacktest.Scrape(h.ad.metricsURL()); err == nil {
		x.BudgetMetric, x.WriteBudget = budgetOf(mt, o.budgetMetric, oneConsumer)
	}
	x.applied = h.waitApplied(ctx, x.Creates, before, start)
	res.OneConsumer = x
	h.log.Info("one-consumer phase done", "creates_per_s", runresults.Num(x.CreatesPerS), "applied_per_s", runresults.Num(x.AppliedPerS),
		"all_applied", x.AllApplied, "write_budget", x.WriteBudget.String())
	h.settle(ctx, p.Creates)
	if o.ceilingClients > 0 && ctx.Err() == nil {
		c, err := h.ceilingPhase(ctx, max(int(p.Creates), 1), x)
		if err != nil {
			return fmt.Errorf("ceiling phase: %w", err)
		}
		x.Ceiling = c
	}
	return nil
}

// waitApplied polls the one consumer's agent until it has applied the
// created bundles of a phase, or has applied nothing new for 30 s, and
// says how many it applied and how fast, from start.
func (h *harness) waitApplied(ctx context.Context, created float64, before int64, start time.Time) applied {
	last, lastAt, lastLog := before, start, time.Now()
	poll := 250 * time.Millisecond
	if h.oneAgent == nil {
		poll = 2 * time.Second // a paged list of Maestro's bundles each time
	}
	for ctx.Err() == nil {
		got, err := h.appliedOnOne(ctx)
		if err != nil {
			h.log.Warn("one-consumer: the agent did not say what it applied", "error", err)
			break
		}
		if got > last {
			last, lastAt = got, time.Now()
		}
		if float64(last-before) >= created || time.Since(lastAt) > 30*time.Second {
			break
		}
		if time.Since(lastLog) >= 30*time.Second {
			lastLog = time.Now()
			h.log.Info("one-consumer: waiting for the agent to apply", "applied", last-before, "created", created)
		}
		sleepCtx(ctx, poll)
	}
	a := applied{Applied: float64(last - before)}
	a.AllApplied = a.Applied >= created
	if a.AppliedS = lastAt.Sub(start).Seconds(); a.AppliedS > 0 {
		a.AppliedPerS = a.Applied / a.AppliedS
	}
	return a
}

// appliedOnOne is how many bundles the one consumer's agent has applied:
// the simulated agent says so itself; a real agent's are counted in
// Maestro (appliedInMaestro).
func (h *harness) appliedOnOne(ctx context.Context) (int64, error) {
	if h.oneAgent != nil {
		return h.oneAgent.appliedCount(10 * time.Second)
	}
	n, err := appliedInMaestro(ctx, h.o.maestroREST, h.sourceID, oneConsumer)
	return int64(n), err
}

// budgetOf finds the write budget's series for consumer among the metrics
// whose name starts with prefix (a rate metric preferred) and returns that
// metric's name and value. Without a series naming the consumer it takes a
// rate metric's unlabelled series (the adaptive budget's
// bundle_adapter_maestro_write_budget_max_rate: the highest per-consumer
// rate, the one consumer's in its phase); "n/a" when the adapter exposes
// neither.
func budgetOf(m stacktest.Metrics, prefix, consumer string) (string, runresults.Maybe) {
	var names []string
	for name := range m {
		if strings.HasPrefix(name, prefix) {
			names = append(names, name)
		}
	}
	sort.Slice(names, func(i, j int) bool {
		ri, rj := strings.Contains(names[i], "rate"), strings.Contains(names[j], "rate")
		return ri && !rj || ri == rj && names[i] < names[j]
	})
	label := fmt.Sprintf("consumer=%q", consumer)
	for _, name := range names {
		for _, s := range m[name] {
			if strings.Contains(s.Labels, label) {
				return name, runresults.Measured(s.Value)
			}
		}
	}
	for _, name := range names {
		for _, s := range m[name] {
			if s.Labels == "" && strings.Contains(name, "rate") {
				return name, runresults.Measured(s.Value)
			}
		}
	}
	return prefix, runresults.Maybe{}
}

// fleetPhases runs the steady, restart and replicas phases --phases names,
// paced ones at rate.
func (h *harness) fleetPhases(ctx context.Context, res *results, rate float64) error {
	o := h.o
	if o.phases[phaseSteady] && ctx.Err() == nil {
		if err := h.steadyPhase(ctx, res, rate); err != nil {
			return err
		}
	}
	if o.phases[phaseRestart] && ctx.Err() == nil {
		if err := h.restartPhase(ctx, res, rate); err != nil {
			return err
		}
	}
	if o.phases[phaseReplicas] && ctx.Err() == nil {
		return h.replicasPhase(ctx, res)
	}
	return nil
}

// maxInflight bounds the paced phases' events waiting at once.
func (h *harness) maxInflight() int { return min(max(2*h.o.window, h.o.clusters/2), 2000) }

// steadyPhase sends paced unchanged events for --steady-ages view max ages
// (Sentinel's resends in steady state) and counts the adapter's Maestro
// requests over the whole phase: what keeping the view fresh costs.
func (h *harness) steadyPhase(ctx context.Context, res *results, rate float64) error {
	o, n := h.o, h.o.clusters
	d := time.Duration(o.steadyAges * float64(o.viewMaxAge))
	if o.viewMaxAge == 0 {
		d = o.latencyFor
	}
	h.log.Info("steady phase: paced unchanged events over several view max ages", "events_per_s", fmt.Sprintf("%.0f", rate),
		"for", d, "view_max_age", o.viewMaxAge)
	p, err := h.measure(phaseSteady, func() *tally {
		return h.drv.paced(ctx, n, 0, int(rate*d.Seconds())+1, rate, time.Now().Add(d), h.maxInflight())
	})
	if err != nil {
		return err
	}
	p.OfferedPerS = rate
	res.Phases = append(res.Phases, p)
	s := &steadyResult{ViewMaxAgeS: o.viewMaxAge.Seconds(), Seconds: p.Seconds, RatePerS: rate, Events: p.Events,
		Requests: p.MaestroRequests, P50MS: p.P50MS, P99MS: p.P99MS, Lost: p.Lost}
	if s.ViewMaxAgeS > 0 {
		s.ViewMaxAges = s.Seconds / s.ViewMaxAgeS
	}
	if p.Events > 0 {
		s.RequestsPerEvent = runresults.Maybe{V: p.MaestroRequests / float64(p.Events), OK: p.MaestroRequestsSeen}
	}
	res.Steady = s
	return nil
}

// restartPhase sends paced events for --restart-for and, --restart-after
// into it, kills the adapter (SIGKILL) and starts it again on the same
// config and queue; the events published meanwhile wait in the queue. It
// records the new adapter's Maestro requests second by second.
func (h *harness) restartPhase(ctx context.Context, res *results, rate float64) error {
	o, n := h.o, h.o.clusters
	x := &restartResult{RatePerS: rate, PageSize: o.viewPageSize}
	h.log.Info("restart phase: paced events; the adapter is killed and started again", "events_per_s", fmt.Sprintf("%.0f", rate),
		"for", o.restartFor, "kill_after", o.restartAfter)
	var restartErr error
	p, err := h.measure(phaseRestart, func() *tally {
		start := time.Now()
		done := make(chan *tally, 1)
		go func() {
			done <- h.drv.paced(ctx, n, 0, int(rate*o.restartFor.Seconds())+1, rate, start.Add(o.restartFor), h.maxInflight())
		}()
		restartErr = h.killAndRestart(ctx, start, x)
		return <-done
	})
	if err != nil {
		return err
	}
	if restartErr != nil {
		return restartErr
	}
	p.OfferedPerS = rate
	res.Phases = append(res.Phases, p)
	x.Events, x.P50MS, x.P99MS, x.Lost = p.Events, p.P50MS, p.P99MS, p.Lost
	if len(p.Timeline) > 0 {
		for _, s := range p.Timeline {
			x.MaxMS = max(x.MaxMS, s.MaxMS)
		}
	}
	bundles, err := bundlesTracked(ctx, o.maestroREST, h.sourceID)
	if err != nil {
		return fmt.Errorf("count bundles: %w", err)
	}
	x.Bundles, x.RequestsLimit = bundles, restartLimit(bundles, o.viewPageSize)
	res.Restart = x
	h.log.Info("restart phase done", "down_s", runresults.Num(x.DownS), "requests_first_minute", runresults.Num(x.RequestsFirstMinute),
		"limit", runresults.Num(x.RequestsLimit), "recovery_s", x.RecoveryS.String(), "p99_ms", runresults.Num(x.P99MS))
	return nil
}

// killAndRestart waits until --restart-after from start, measures the
// adapter's Maestro requests per second until then, kills it, starts it
// again and samples the new one's requests every second until the phase
// ends.
func (h *harness) killAndRestart(ctx context.Context, start time.Time, x *restartResult) error {
	o := h.o
	old, ok := h.ad.(*binaryAdapter)
	if !ok {
		return errors.New("restart: the adapter is not a process")
	}
	m0, err := stacktest.Scrape(old.metricsURL())
	if err != nil {
		return fmt.Errorf("restart: scrape: %w", err)
	}
	t0 := time.Now()
	sleepCtx(ctx, time.Until(start.Add(o.restartAfter)))
	m1, err := stacktest.Scrape(old.metricsURL())
	if err != nil {
		return fmt.Errorf("restart: scrape: %w", err)
	}
	x.SteadyRequestsPerS = (m1.Sum(o.requestsMetric) - m0.Sum(o.requestsMetric)) / time.Since(t0).Seconds()
	h.retire(old, m1)
	killAt := time.Now()
	old.Kill()
	x.KilledAtS = killAt.Sub(start).Seconds()
	h.log.Info("restart: adapter killed (SIGKILL); starting it again", "pid", old.pid())
	ad, err := startBinary(ctx, o.adapterBin, h.files, filepath.Join(h.files.Dir, "adapter-restarted.log"))
	if err != nil {
		return fmt.Errorf("restart: %w", err)
	}
	h.ad = ad
	x.DownS = time.Since(killAt).Seconds()
	h.log.Info("restart: adapter ready again", "down_s", runresults.Num(x.DownS), "pid", ad.pid())
	var cumulative []float64 // requests by the end of each second after the kill
	end := start.Add(o.restartFor)
	for k := 1; ctx.Err() == nil && killAt.Add(time.Duration(k)*time.Second).Before(end); k++ {
		sleepCtx(ctx, time.Until(killAt.Add(time.Duration(k)*time.Second)))
		v := 0.0
		if mt, err := stacktest.Scrape(ad.metricsURL()); err == nil {
			v = mt.Sum(o.requestsMetric)
		} else if len(cumulative) > 0 {
			v = cumulative[len(cumulative)-1]
		}
		cumulative = append(cumulative, v)
	}
	x.RequestsBySecond = perSecond(cumulative)
	if k := min(60, len(cumulative)); k > 0 {
		x.RequestsFirstMinute, x.FirstMinuteS = cumulative[k-1], float64(k)
	}
	x.RecoveryS = recovery(x.RequestsBySecond, x.SteadyRequestsPerS, int(math.Ceil(x.DownS)))
	return nil
}

// perSecond turns cumulative counts into each second's increase.
func perSecond(cumulative []float64) []float64 {
	out := make([]float64, len(cumulative))
	prev := 0.0
	for i, v := range cumulative {
		out[i], prev = max(0, v-prev), v
	}
	return out
}

// recoveryWindow is the seconds over which the requests rate must be back
// at the steady level, and recoverySlack the requests/s allowed above it.
const (
	recoveryWindow = 5
	recoverySlack  = 0.2
)

// recovery is the seconds from the kill (bySecond[i] is second i+1) until
// the first recoveryWindow seconds, from `from` on, whose rate is within
// steady + recoverySlack; "n/a" when no such window came.
func recovery(bySecond []float64, steady float64, from int) runresults.Maybe {
	for i := max(0, from); i+recoveryWindow <= len(bySecond); i++ {
		sum := 0.0
		for _, v := range bySecond[i : i+recoveryWindow] {
			sum += v
		}
		if sum/recoveryWindow <= steady+recoverySlack {
			return runresults.Measured(float64(i))
		}
	}
	return runresults.Maybe{}
}

// replicasPhase measures unchanged events/s, saturating, with the adapter
// alone and then with a second adapter process on the same queue
// (competing consumers), each for --unchanged-for; between them one
// unmeasured pass of two events per cluster, so each replica has seen most
// clusters. The second replica is stopped at the end.
func (h *harness) replicasPhase(ctx context.Context, res *results) error {
	o, n := h.o, h.o.clusters
	unchanged := func() *tally { return h.drv.closedLoop(ctx, n, 0, 100*n, o.window, time.Now().Add(o.unchangedFor)) }
	h.log.Info("replicas phase: unchanged events with one adapter", "for", o.unchangedFor)
	one, err := h.measure("replicas-1", unchanged)
	if err != nil {
		return err
	}
	res.Phases = append(res.Phases, one)
	h.log.Info("replicas phase: starting a second adapter on the same queue")
	second, err := startBinary(ctx, o.adapterBin, h.files, filepath.Join(h.files.Dir, "adapter-2.log"))
	if err != nil {
		return fmt.Errorf("second replica: %w", err)
	}
	h.extra = []adapterUnderTest{second}
	defer h.stopExtra()
	h.log.Info("replicas phase: one unmeasured pass, two events per cluster, over both replicas")
	h.drv.closedLoop(ctx, n, 0, 2*n, o.window, time.Now().Add(time.Minute+time.Duration(float64(2*n)/o.warmPerSecLo*float64(time.Second))))
	ads := []adapterUnderTest{h.ad, second}
	before := replicaCounters(ads, o.requestsMetric)
	h.log.Info("replicas phase: unchanged events with two adapters", "for", o.unchangedFor)
	two, err := h.measure("replicas-2", unchanged)
	if err != nil {
		return err
	}
	res.Phases = append(res.Phases, two)
	after := replicaCounters(ads, o.requestsMetric)
	x := &replicasResult{OneEventsPerS: one.EventsPerS, TwoEventsPerS: two.EventsPerS, Cores: res.Cores,
		BusyCoresOne: one.BusyCores, BusyCoresTwo: two.BusyCores}
	if one.EventsPerS > 0 {
		x.Ratio = two.EventsPerS / one.EventsPerS
	}
	if s := two.Seconds; s > 0 {
		x.MaestroCores, x.PostgresCores, x.RabbitMQCores, x.HarnessCores = two.MaestroCPU/s, two.PostgresCPU/s, two.RabbitMQCPU/s, two.HarnessCPU/s
	}
	for i, ad := range ads {
		rp := replica{Requests: after[i].requests - before[i].requests}
		if s := two.Seconds; s > 0 {
			rp.CPUCores = (after[i].cpu - before[i].cpu) / s
		}
		rp.RSSMB, rp.RSSPeakMB, _ = memoryMB(ad.pid())
		x.Replicas = append(x.Replicas, rp)
	}
	res.Replicas = x
	h.log.Info("replicas phase done", "one_events_per_s", runresults.Num(x.OneEventsPerS), "two_events_per_s", runresults.Num(x.TwoEventsPerS),
		"ratio", runresults.Num(x.Ratio), "busy_cores", runresults.Num(x.BusyCoresTwo))
	return nil
}

// counters are one adapter's Maestro requests and CPU seconds so far.
type counters struct{ requests, cpu float64 }

func replicaCounters(ads []adapterUnderTest, metric string) []counters {
	out := make([]counters, len(ads))
	for i, ad := range ads {
		if m, err := stacktest.Scrape(ad.metricsURL()); err == nil {
			out[i].requests = m.Sum(metric)
		}
		out[i].cpu, _ = cpuSeconds(ad.pid())
	}
	return out
}

// stopExtra stops the second replica, counting what it did as retired.
func (h *harness) stopExtra() {
	for _, ad := range h.extra {
		if m, err := stacktest.Scrape(ad.metricsURL()); err == nil {
			h.retire(ad, m)
		}
		if err := ad.stop(); err != nil {
			h.log.Warn("second replica stop", "error", err)
		}
	}
	h.extra = nil
}

// retire counts an adapter about to be killed or stopped: its last metrics
// and CPU stay in every later snapshot, so counters do not go back.
func (h *harness) retire(ad adapterUnderTest, last stacktest.Metrics) {
	if h.retired == nil {
		h.retired = stacktest.Metrics{}
	}
	for name, samples := range last {
		h.retired[name] = append(h.retired[name], samples...)
	}
	cpu, _ := cpuSeconds(ad.pid())
	h.retiredCPU += cpu
	if _, peak, err := memoryMB(ad.pid()); err == nil {
		h.retiredRSSPeak = max(h.retiredRSSPeak, peak)
	}
}

// adapterCounters are the metrics (every series of every adapter process
// the run started, those retired included) and CPU seconds of the adapters.
func (h *harness) adapterCounters() (stacktest.Metrics, float64, error) {
	all := stacktest.Metrics{}
	for name, samples := range h.retired {
		all[name] = append(all[name], samples...)
	}
	cpu := h.retiredCPU
	for _, ad := range append([]adapterUnderTest{h.ad}, h.extra...) {
		m, err := stacktest.Scrape(ad.metricsURL())
		if err != nil {
			return nil, 0, fmt.Errorf("scrape adapter metrics: %w", err)
		}
		for name, samples := range m {
			all[name] = append(all[name], samples...)
		}
		c, err := cpuSeconds(ad.pid())
		if err != nil {
			return nil, 0, err
		}
		cpu += c
	}
	return all, cpu, nil
}

// isAdapter reports whether pid is one of the run's adapter processes.
func (h *harness) isAdapter(pid int) bool {
	if pid == h.ad.pid() {
		return true
	}
	for _, ad := range h.extra {
		if pid == ad.pid() {
			return true
		}
	}
	return false
}
