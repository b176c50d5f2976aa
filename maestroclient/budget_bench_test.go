package maestroclient

import (
	"fmt"
	"testing"
	"time"

	workv1 "open-cluster-management.io/api/work/v1"
)

// BenchmarkBudgetReserve is what the write budget adds to every write that
// is within its budget: one map lookup and refill under a lock (adaptive
// with a stream: plus tracking the write and its report). Writes of 1,000
// consumers, none of them over budget.
func BenchmarkBudgetReserve(b *testing.B) {
	for _, mode := range []string{BudgetFixed, BudgetAdaptive} {
		b.Run(mode, func(b *testing.B) {
			budget := newBudget(WriteBudget{Mode: mode, PerSecond: 1e9, Burst: 1e9, Ceiling: 1e9, Window: 1e9}, time.Now)
			budget.Subscribed()
			consumers := make([]string, 1000)
			reports := make([]*workv1.ManifestWork, len(consumers))
			for i := range consumers {
				consumers[i] = fmt.Sprint("cluster-", i)
				reports[i] = work(consumers[i], "bundle")
			}
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				i := 0
				for pb.Next() {
					if !budget.reserve(consumers[i%len(consumers)], "bundle", time.Second).ok {
						b.Fatal("refused within budget")
					}
					if mode == BudgetAdaptive {
						budget.Status(reports[i%len(consumers)])
					}
					i++
				}
			})
		})
	}
}

// BenchmarkBudgetDrain reports how long the default budget makes one
// consumer's burst of writes take (no real time passes): the throughput
// cost of the budget for one consumer, e.g. 100 recreations (200 writes).
// fixed is the fixed budget (and the adaptive one without a status
// stream); adaptive is the adaptive budget with an agent that reports
// every write agentLatency after it was sent (drive, budget_adaptive_test.go).
func BenchmarkBudgetDrain(b *testing.B) {
	for _, mode := range []string{BudgetFixed, BudgetAdaptive} {
		for _, writes := range []int{25, 100, 200, 1000} {
			b.Run(fmt.Sprint(mode, "/", writes, "-writes"), func(b *testing.B) {
				var took time.Duration
				for b.Loop() {
					clock := newFakeClock()
					budget := newBudget(WriteBudget{Mode: mode, PerSecond: DefaultConsumerWritesPerSecond,
						Burst: DefaultConsumerWriteBurst, Ceiling: DefaultConsumerWriteCeiling, Window: DefaultConsumerWriteWindow}, clock.now)
					budget.Subscribed()
					took = drive(budget, clock, agent{latency: agentLatency}, writes, time.Hour).took
				}
				b.ReportMetric(took.Seconds(), "s-to-send-all")
			})
		}
	}
}
