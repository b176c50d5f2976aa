package main

import (
	"slices"
	"testing"
	"time"
)

// The schedule is repeatable from the seed, covers every fault once and
// stays within its span.
func TestScheduleRepeatableFromSeed(t *testing.T) {
	from, to := time.Minute, 29*time.Minute
	a, b := schedule(7, allFaults, from, to), schedule(7, allFaults, from, to)
	if !slices.Equal(a, b) {
		t.Fatalf("seed 7 gave two schedules:\n%v\n%v", a, b)
	}
	if c := schedule(8, allFaults, from, to); slices.Equal(a, c) {
		t.Errorf("seeds 7 and 8 gave the same schedule %v", a)
	}
	var names []string
	for i, p := range a {
		names = append(names, p.name)
		if p.at < from || p.at >= to {
			t.Errorf("%s at %v, outside [%v, %v)", p.name, p.at, from, to)
		}
		if i > 0 && p.at <= a[i-1].at {
			t.Errorf("%s at %v not after %s at %v", p.name, p.at, a[i-1].name, a[i-1].at)
		}
	}
	slices.Sort(names)
	want := slices.Sorted(slices.Values(allFaults))
	if !slices.Equal(names, want) {
		t.Errorf("faults %v, want each of %v once", names, want)
	}
}

func TestTraceID(t *testing.T) {
	for in, want := range map[string]string{
		"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01": "0af7651916cd43dd8448eb211c80319c",
		"": "", "garbage": "",
	} {
		if got := traceID(in); got != want {
			t.Errorf("traceID(%q) = %q, want %q", in, got, want)
		}
	}
}
