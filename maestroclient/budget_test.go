package maestroclient

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// fakeClock is a clock the test moves.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time      { return c.t }
func (c *fakeClock) add(d time.Duration) { c.t = c.t.Add(d) }
func newFakeClock() *fakeClock           { return &fakeClock{t: time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)} }
func ms(n int) time.Duration             { return time.Duration(n) * time.Millisecond }
func reserveAll(b *budget, c string, n int) (waits []time.Duration) {
	for i := range n {
		waits = append(waits, b.reserve(c, fmt.Sprint("w-", i), time.Hour).wait)
	}
	return waits
}

// modes are the budgets that must behave as the fixed token bucket: the
// fixed mode, and the adaptive mode without a status stream.
var modes = []string{BudgetFixed, BudgetAdaptive}

func forModes(t *testing.T, test func(t *testing.T, mode string)) {
	for _, mode := range modes {
		t.Run(mode, func(t *testing.T) { test(t, mode) })
	}
}

// A burst goes out at once; the writes beyond it are told to wait one
// interval more each, in the order they asked; idle time earns tokens back
// up to the burst and no further.
func TestBudgetPacesWritesPerConsumer(t *testing.T) {
	tests := []struct {
		name  string
		burst int
		rate  float64
		idle  time.Duration // after a first burst of `burst` writes
		n     int
		want  []time.Duration
	}{
		{"burst then 2/s", 3, 2, 0, 5, []time.Duration{ms(500), ms(1000), ms(1500), ms(2000), ms(2500)}},
		{"half a second idle earns one", 3, 2, ms(500), 3, []time.Duration{0, ms(500), ms(1000)}},
		{"long idle refills only the burst", 2, 10, time.Hour, 3, []time.Duration{0, 0, ms(100)}},
	}
	for _, tt := range tests {
		forModes(t, func(t *testing.T, mode string) {
			t.Run(tt.name, func(t *testing.T) {
				clock := newFakeClock()
				b := newBudget(WriteBudget{Mode: mode, PerSecond: tt.rate, Burst: tt.burst, Ceiling: 400, Window: 50}, clock.now)
				for i, w := range reserveAll(b, "c1", tt.burst) {
					if w != 0 {
						t.Fatalf("write %d of the burst waits %s", i+1, w)
					}
				}
				clock.add(tt.idle)
				if got := reserveAll(b, "c1", tt.n); fmt.Sprint(got) != fmt.Sprint(tt.want) {
					t.Errorf("waits %v, want %v", got, tt.want)
				}
			})
		})
	}
}

// One consumer's spent budget never delays another's writes.
func TestBudgetConsumersAreIndependent(t *testing.T) { forModes(t, testConsumersAreIndependent) }

func testConsumersAreIndependent(t *testing.T, mode string) {
	clock := newFakeClock()
	b := newBudget(WriteBudget{Mode: mode, PerSecond: 1, Burst: 2, Ceiling: 400, Window: 50}, clock.now)
	reserveAll(b, "busy", 10)
	if got := reserveAll(b, "quiet", 2); fmt.Sprint(got) != fmt.Sprint([]time.Duration{0, 0}) {
		t.Errorf("another consumer waits %v, want its own burst at once", got)
	}
}

// A write that would wait past its deadline is refused and takes nothing:
// the next one is offered the same slot.
func TestBudgetRefusesPastTheDeadline(t *testing.T) { forModes(t, testRefusesPastTheDeadline) }

func testRefusesPastTheDeadline(t *testing.T, mode string) {
	clock := newFakeClock()
	b := newBudget(WriteBudget{Mode: mode, PerSecond: 1, Burst: 1, Ceiling: 400, Window: 50}, clock.now)
	reserveAll(b, "c1", 3) // next slot in 3s
	if g := b.reserve("c1", "w", 2*time.Second); g.ok || g.wait != 3*time.Second {
		t.Errorf("reserve with 2s left = %s, %v; want refused with the 3s it would need", g.wait, g.ok)
	}
	if g := b.reserve("c1", "w", 5*time.Second); !g.ok || g.wait != 3*time.Second {
		t.Errorf("reserve with 5s left = %s, %v; want the same 3s slot", g.wait, g.ok)
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	err := b.wait(ctx, "c1", "w")
	if !errors.Is(err, adapter.ErrUnavailable) {
		t.Errorf("wait past the deadline = %v, want ErrUnavailable (redelivered later)", err)
	}
}

// Past maxTrackedConsumers the idle consumers (full buckets) are forgotten;
// a consumer still paying off its budget is kept.
func TestBudgetForgetsIdleConsumers(t *testing.T) { forModes(t, testForgetsIdleConsumers) }

func testForgetsIdleConsumers(t *testing.T, mode string) {
	clock := newFakeClock()
	b := newBudget(WriteBudget{Mode: mode, PerSecond: 1, Burst: 1, Ceiling: 400, Window: 50}, clock.now)
	reserveAll(b, "busy", 5)
	for i := range maxTrackedConsumers {
		b.consumers[fmt.Sprint("idle-", i)] = &bucket{tokens: 1, at: clock.t, rate: 1}
	}
	reserveAll(b, "new", 1)
	if _, ok := b.consumers["busy"]; !ok || len(b.consumers) != 2 {
		t.Errorf("after eviction: %d consumers tracked, busy kept %v; want busy and new only", len(b.consumers), ok)
	}
	if got := reserveAll(b, "busy", 1); got[0] != 5*time.Second {
		t.Errorf("busy's next write waits %s, want 5s: its debt survives eviction", got[0])
	}
}
