package celenv

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"
)

// celEvalBounded compiles src with the variable s and evaluates it with
// s bound, reporting the error and what the evaluation allocated.
func celEvalBounded(t *testing.T, src string, s string) (error, uint64) {
	t.Helper()
	e := celCompile(t, src, "s")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, _, err := e.Program.ContextEval(ctx, map[string]any{"s": s})
	runtime.ReadMemStats(&after)
	return err, after.TotalAlloc - before.TotalAlloc
}

// Every CEL function has a cost that grows with what it builds, so the
// cost limit stops a string bomb before it allocates past a few MiB
// (issue 14, item 8: toJson nested 18 times around 1,000 backslashes
// allocated 1.1 GB in 4.8 s).
func TestCELStringBombsHitTheCostLimit(t *testing.T) {
	tests := []struct {
		name, src, s string
	}{
		{"nested toJson", strings.Repeat("toJson(", 16) + "s" + strings.Repeat(")", 16), strings.Repeat(`\`, 1000)},
		{"nested replace", "s" + strings.Repeat(`.replace("x", "xxxxxxxxxx")`, 8), "x"},
		{"toJson of a list of big strings", `toJson([s, s, s, s, s, s, s, s])`, strings.Repeat("\x01", 1<<20)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err, alloc := celEvalBounded(t, tt.src, tt.s)
			if err == nil || !strings.Contains(err.Error(), "cost limit") && !strings.Contains(err.Error(), "toJson") {
				t.Errorf("err = %v, want the cost limit or toJson's size limit", err)
			}
			if alloc > 96<<20 {
				t.Errorf("allocated %d MiB, want at most 96 MiB", alloc>>20)
			}
		})
	}
}
