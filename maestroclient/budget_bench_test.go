package maestroclient

import (
	"fmt"
	"testing"
	"time"
)

// BenchmarkBudgetReserve is what the write budget adds to every write that
// is within its budget: one map lookup and refill under a lock. Writes of
// 1,000 consumers, none of them over budget.
func BenchmarkBudgetReserve(b *testing.B) {
	budget := newBudget(WriteBudget{PerSecond: 1e9, Burst: 1e9}, time.Now)
	consumers := make([]string, 1000)
	for i := range consumers {
		consumers[i] = fmt.Sprint("cluster-", i)
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			if _, ok := budget.reserve(consumers[i%len(consumers)], time.Second); !ok {
				b.Fatal("refused within budget")
			}
			i++
		}
	})
}

// BenchmarkBudgetDrain reports how long the default budget makes one
// consumer's burst of writes take (no real time passes): the throughput
// cost of the budget for one consumer, e.g. 100 recreations (200 writes).
func BenchmarkBudgetDrain(b *testing.B) {
	for _, writes := range []int{25, 100, 200, 1000} {
		b.Run(fmt.Sprint(writes, "-writes"), func(b *testing.B) {
			var last time.Duration
			for b.Loop() {
				clock := newFakeClock()
				budget := newBudget(WriteBudget{PerSecond: DefaultConsumerWritesPerSecond, Burst: DefaultConsumerWriteBurst}, clock.now)
				for range writes {
					last, _ = budget.reserve("c1", time.Hour)
				}
			}
			b.ReportMetric(last.Seconds(), "s-to-send-all")
		})
	}
}
