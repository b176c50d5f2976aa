package main

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/bench/internal/runresults"
	"github.com/bundle-adapter/bundle-adapter/maestroclient"
)

// ceilingResult is Maestro's own create limit for one consumer on this
// machine (issue 47): bundles written straight through maestroclient's
// source client, no adapter, as fast as Maestro accepts them, to the same
// consumer and the same agent as the one-consumer phase. Maestro accepts a
// publish once it stored the bundle and delivers it to the agent later, so
// the limit is the rate the agent applied them (AppliedPerS: what Maestro
// delivered to one consumer), not CreatesPerS (what it accepted: the first
// run here, 2,000 bundles, accepted 791/s and delivered 51/s).
type ceilingResult struct {
	Clients     int     `json:"source_clients"` // of the Pool; each has sdk-go's own publish limiter
	Callers     int     `json:"callers"`
	Creates     float64 `json:"creates"`
	Failed      int     `json:"failed"`
	Seconds     float64 `json:"seconds"`
	CreatesPerS float64 `json:"creates_per_s"`
	applied
	AdapterShare  float64 `json:"adapter_share"` // the one-consumer phase's applied/s over AppliedPerS, both at the same agent
	FirstErrorMsg string  `json:"first_error,omitempty"`
}

// ceilingPhase creates n bundles for the one consumer through a
// maestroclient Pool of its own (source id <run's>-ceiling, so the
// adapter's view and lists never see them), from callers goroutines, each
// a create with no read before it (adapter.ReadAbsent: Maestro's unique id
// would refuse a duplicate), the write budget out of the way; then waits
// until the consumer's agent has applied them, as the one-consumer phase
// does. It measures what Maestro, its per-consumer dispatch and the agent
// take, the limit the adapter's creates to one consumer are compared with.
func (h *harness) ceilingPhase(ctx context.Context, n int, x *oneConsumerResult) (*ceilingResult, error) {
	o := h.o
	c := &ceilingResult{Clients: o.ceilingClients, Callers: o.window}
	pool, err := maestroclient.NewPool(ctx, maestroclient.Options{
		GRPCAddress: o.maestroGRPC, GRPC: maestroclient.TLSOptions{Insecure: true},
		HTTPURL: o.maestroREST, HTTP: maestroclient.TLSOptions{Insecure: true},
		SourceID: h.sourceID + "-ceiling", Clients: o.ceilingClients, Timeout: 30 * time.Second,
		Logger: slog.New(slog.DiscardHandler),
		// The budget out of the way: Maestro and the agent set the pace.
		ConsumerWrites: maestroclient.WriteBudget{Mode: maestroclient.BudgetFixed, PerSecond: 1e6, Burst: 1e6, Ceiling: 1e6, Window: 1},
	})
	if err != nil {
		return nil, err
	}
	defer pool.Close()
	before, err := h.appliedOnOne(ctx)
	if err != nil {
		return nil, err
	}
	h.log.Info("ceiling phase: bundles straight to Maestro for the one consumer, no adapter", "bundles", n,
		"source_clients", c.Clients, "callers", c.Callers)
	var next, failed atomic.Int64
	var firstErr sync.Once
	start := time.Now()
	var wg sync.WaitGroup
	for range c.Callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1) - 1; i < int64(n) && ctx.Err() == nil; i = next.Add(1) - 1 {
				if _, err := pool.Create(ctx, oneConsumer, ceilingBundle(int(i)), adapter.ReadAbsent); err != nil {
					failed.Add(1)
					firstErr.Do(func() { c.FirstErrorMsg = err.Error() })
				}
			}
		}()
	}
	wg.Wait()
	c.Seconds = time.Since(start).Seconds()
	c.Failed = int(failed.Load())
	c.Creates = float64(n - c.Failed)
	if c.Seconds > 0 {
		c.CreatesPerS = c.Creates / c.Seconds
	}
	c.applied = h.waitApplied(ctx, c.Creates, before, start)
	if c.AppliedPerS > 0 && c.AllApplied && x != nil {
		c.AdapterShare = x.AppliedPerS / c.AppliedPerS
	}
	h.log.Info("ceiling phase done", "creates_per_s", runresults.Num(c.CreatesPerS), "applied_per_s", runresults.Num(c.AppliedPerS),
		"all_applied", c.AllApplied, "failed", c.Failed, "adapter_share", runresults.Num(c.AdapterShare))
	h.settle(ctx, c.Creates)
	return c, nil
}

// ceilingBundle is bundle i of the ceiling phase: one ConfigMap, about
// the size of the example's smaller bundle.
func ceilingBundle(i int) *workv1.ManifestWork {
	name := fmt.Sprintf("ceiling-%06d", i)
	cm := fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":%q,"namespace":"default",`+
		`"labels":{"app.kubernetes.io/managed-by":"bundle-adapter-bench"}},"data":{"cluster":%q,"generation":"1"}}`, name, name)
	return &workv1.ManifestWork{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: workv1.ManifestWorkSpec{Workload: workv1.ManifestsTemplate{Manifests: []workv1.Manifest{
			{RawExtension: runtime.RawExtension{Raw: []byte(cm)}},
		}}},
	}
}
