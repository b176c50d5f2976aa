package maestroclient_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/maestroclient"
)

// Environment of TestRealAgentDrainRate: the consumer of a real `maestro
// agent` (hack/agent.sh start CONSUMER) on a real kube-apiserver, how many
// bundles to create, and which budgets to run (adaptive, fixed, lifted:
// fixed at a million writes/s).
const (
	envDrainConsumer = "MAESTRO_DRAIN_CONSUMER"
	envDrainBundles  = "MAESTRO_DRAIN_BUNDLES"
	envDrainModes    = "MAESTRO_DRAIN_MODES"
)

// TestRealAgentDrainRate measures how fast one real agent applies creates
// (one ConfigMap each) sent through a Pool as fast as the write budget
// lets them go, from the status stream: time to Applied per bundle, the
// rate the budget settled on, the peak of writes outstanding. It is a
// measurement (docs/reliability.md), run by hand; it fails only when the
// bundles are not all applied.
func TestRealAgentDrainRate(t *testing.T) {
	s := requireServer(t)
	consumer := os.Getenv(envDrainConsumer)
	if consumer == "" {
		t.Skipf("measurement: set %s to the consumer of a real agent (hack/agent.sh start)", envDrainConsumer)
	}
	n, _ := strconv.Atoi(os.Getenv(envDrainBundles))
	if n <= 0 {
		n = 300
	}
	modes := strings.Split(os.Getenv(envDrainModes), ",")
	if modes[0] == "" {
		modes = []string{"adaptive"}
	}
	for _, mode := range modes {
		t.Run(mode, func(t *testing.T) { measureDrain(t, s, consumer, mode, n) })
	}
}

func measureDrain(t *testing.T, s server, consumer, mode string, n int) {
	rec := &appliedRecorder{applied: map[string]time.Time{}, prefix: unique("drain-" + strings.ReplaceAll(mode, "@", "-at-"))}
	budget := maestroclient.WriteBudget{Mode: mode}
	if mode == "lifted" {
		budget = maestroclient.WriteBudget{Mode: maestroclient.BudgetFixed, PerSecond: 1e6, Burst: 1e6}
	}
	if rate, ok := strings.CutPrefix(mode, "fixed@"); ok { // an agent far from busy: its latency alone
		perSecond, _ := strconv.ParseFloat(rate, 64)
		budget = maestroclient.WriteBudget{Mode: maestroclient.BudgetFixed, PerSecond: perSecond, Burst: 1}
	}
	pool, err := maestroclient.NewPool(context.Background(), maestroclient.Options{
		GRPCAddress: s.grpc, GRPC: s.grpcTLS, HTTP: maestroclient.TLSOptions{Insecure: true}, HTTPURL: s.rest,
		SourceID: "maestroclient-drain", Timeout: 2 * time.Minute, Logger: testLogger(t),
		ConsumerWrites: budget, Status: rec,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	time.Sleep(2 * time.Second) // the stream subscribes

	var peakOut int
	var peakRate float64
	var rates []float64 // budget's rate every 500 ms while sending
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			st := pool.WriteBudgetStats()
			peakOut, peakRate = max(peakOut, st.Outstanding), max(peakRate, st.MaxRate)
			if i%10 == 0 {
				rates = append(rates, st.MaxRate)
			}
		}
	}()

	names := make(chan string)
	sent := make([]time.Time, n)
	var wg sync.WaitGroup
	start := time.Now()
	for range 64 { // the dispatcher's workers
		wg.Go(func() {
			for name := range names {
				if _, err := pool.Create(context.Background(), consumer, bundle(name, "v"), adapter.Unread); err != nil {
					t.Errorf("create %s: %v", name, err)
				}
				i, _ := strconv.Atoi(name[strings.LastIndex(name, "-")+1:])
				sent[i] = time.Now()
			}
		})
	}
	for i := range n {
		names <- fmt.Sprintf("%s-%d", rec.prefix, i)
	}
	close(names)
	wg.Wait()
	sentAll := time.Since(start)
	eventually(t, 3*time.Minute, "every bundle applied", func() error {
		if got := rec.count(); got < n {
			return fmt.Errorf("%d of %d applied", got, n)
		}
		return nil
	})
	close(stop)
	<-sampled
	st := pool.WriteBudgetStats()

	var lags []time.Duration
	var last time.Time
	for i := range n {
		at := rec.at(fmt.Sprintf("%s-%d", rec.prefix, i))
		lags = append(lags, at.Sub(sent[i]))
		if at.After(last) {
			last = at
		}
	}
	slices.Sort(lags)
	appliedAll := last.Sub(start)
	t.Logf("%s: %d creates sent in %s (%.0f/s), all applied in %s (%.0f/s); time to applied after send p50 %s p95 %s max %s; "+
		"budget rate peak %.0f/s, at the end %.0f/s, samples every 500ms %v; peak outstanding %d, at the end %d; back-offs %d",
		mode, n, sentAll.Round(time.Millisecond), float64(n)/sentAll.Seconds(), appliedAll.Round(time.Millisecond),
		float64(n)/appliedAll.Seconds(), pct(lags, 0.5), pct(lags, 0.95), lags[len(lags)-1].Round(time.Millisecond),
		peakRate, st.MaxRate, rounded(rates), peakOut, st.Outstanding, st.Backoffs)

	// The bundles stay: deleting them would load the agent while the next
	// mode measures it, and the agent loses some deletions
	// (docs/reliability.md). Run it on a stack of its own.
}

func pct(sorted []time.Duration, p float64) time.Duration {
	return sorted[int(math.Min(float64(len(sorted)-1), p*float64(len(sorted))))].Round(time.Millisecond)
}

func rounded(fs []float64) []int {
	out := make([]int, len(fs))
	for i, f := range fs {
		out[i] = int(math.Round(f))
	}
	return out
}

// appliedRecorder records when the stream first shows each bundle of
// prefix Applied.
type appliedRecorder struct {
	prefix  string
	mu      sync.Mutex
	applied map[string]time.Time
}

func (r *appliedRecorder) Subscribed() {}

func (r *appliedRecorder) Status(w *workv1.ManifestWork) {
	if !strings.HasPrefix(w.Name, r.prefix) || !meta.IsStatusConditionTrue(w.Status.Conditions, workv1.WorkApplied) {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.applied[w.Name]; !ok {
		r.applied[w.Name] = time.Now()
	}
}

func (r *appliedRecorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.applied)
}

func (r *appliedRecorder) at(name string) time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.applied[name]
}
