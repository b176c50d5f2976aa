package main

import "testing"

// TestPlacement: exactly --real-clusters clusters go to the real agents,
// shared evenly, and never more than the bound per agent that keeps an
// agent's resync under Maestro's 100-event subscriber channel.
func TestPlacement(t *testing.T) {
	cases := []struct {
		clusters, real, realClusters int
		want                         map[string]int // clusters per real consumer
	}{
		{clusters: 2000, real: 1, realClusters: 40, want: map[string]int{"r0": 40}},
		{clusters: 2000, real: 2, realClusters: 40, want: map[string]int{"r0": 20, "r1": 20}},
		{clusters: 300, real: 1, realClusters: 40, want: map[string]int{"r0": 40}},
		{clusters: 30, real: 1, realClusters: 10, want: map[string]int{"r0": 10}},
		{clusters: 300, real: 0, want: map[string]int{}},
	}
	for _, c := range cases {
		o := &options{clusters: c.clusters, consumers: 8, realAgents: c.real, realClusters: c.realClusters}
		h := &harness{o: o, consumers: []string{"c0", "c1", "c2", "c3", "c4", "c5", "c6", "c7"}}
		for i := range c.real {
			h.real = append(h.real, []string{"r0", "r1"}[i])
		}
		h.consumers = append(h.consumers, h.real...)
		got := map[string]int{}
		for i := range c.clusters {
			got[h.placement(i)]++
		}
		for _, r := range h.real {
			if got[r] != c.want[r] {
				t.Errorf("%d clusters, %d real agents, %d real clusters: %s got %d, want %d", c.clusters, c.real, c.realClusters, r, got[r], c.want[r])
			}
		}
		if sim := got["c0"]; sim == 0 {
			t.Errorf("%+v: no cluster on a simulated agent", c)
		}
	}
}
