package check

import (
	"slices"
	"testing"
	"time"
)

// TestCheck runs the checker over the handmade passing history of
// testdata/pass and over variants of it, each broken in one way.
func TestCheck(t *testing.T) {
	cases := []struct {
		name   string
		change func(h *History)
		failed []string // the invariants that must fail, in order; none: pass
	}{
		{name: "pass", change: func(*History) {}},
		{name: "acked before reporting: last generation never reported", change: func(h *History) {
			h.API = slices.DeleteFunc(h.API, func(a APIRequest) bool { return a.Cluster == "c1" && a.Generation == 2 && a.Code == 200 })
		}, failed: []string{"lost events", "convergence"}},
		{name: "acked before reporting, healed by the drain's resend: still lost", change: func(h *History) {
			h.API = slices.DeleteFunc(h.API, func(a APIRequest) bool { return a.Cluster == "c1" && a.Generation == 2 && a.Code == 200 })
			drainResend(h, "c1", 2, "True")
		}, failed: []string{"lost events"}},
		{name: "reported, then resent by the drain (not ready, or moved back): not lost", change: func(h *History) {
			drainResend(h, "c1", 2, "True")
		}},
		{name: "a message RabbitMQ still holds at the end is lost", change: func(h *History) {
			h.Meta.QueueHeld = map[string]int{"q": 0, "q.retry.16s": 1}
		}, failed: []string{"lost events"}},
		{name: "queues empty at the end", change: func(h *History) {
			h.Meta.QueueHeld = map[string]int{"q": 0, "q.retry.16s": 0}
		}},
		{name: "dead-lettered with a reason is not lost", change: func(h *History) {
			h.API = slices.DeleteFunc(h.API, func(a APIRequest) bool { return a.Cluster == "c1" && a.Generation == 2 && a.Code == 200 })
			h.DeadLetters = []DeadLetter{{EventID: "e5", Cluster: "c1", Generation: 2, Reason: "post: 503"}}
		}, failed: []string{"convergence"}},
		{name: "dead-lettered without a reason is lost", change: func(h *History) {
			h.API = slices.DeleteFunc(h.API, func(a APIRequest) bool { return a.Cluster == "c1" && a.Generation == 2 && a.Code == 200 })
			h.DeadLetters = []DeadLetter{{EventID: "e5", Cluster: "c1", Generation: 2}}
		}, failed: []string{"lost events", "convergence"}},
		{name: "newest status not Applied", change: func(h *History) {
			h.API[len(h.API)-2].Applied = "False"
		}, failed: []string{"convergence"}},
		{name: "bundle left at the old generation", change: func(h *History) {
			h.Bundles[1].Generation = "1"
		}, failed: []string{"convergence"}},
		{name: "deleted cluster's bundle left", change: func(h *History) {
			h.Bundles = append(h.Bundles, Bundle{Consumer: "a1", Name: "c2-setup", ID: "u9"})
		}, failed: []string{"convergence"}},
		{name: "bundle its agent failed to apply", change: func(h *History) {
			h.Bundles[1].Applied = "False"
		}, failed: []string{"convergence"}},
		{name: "bundle its agent never reported", change: func(h *History) {
			h.Bundles[0].Applied = ""
		}, failed: []string{"convergence"}},
		{name: "bundle missing", change: func(h *History) { h.Bundles = h.Bundles[:1] }, failed: []string{"convergence"}},
		{name: "create while the old work was held", change: func(h *History) {
			h.Agents[4].OldPresent = true
		}, failed: []string{"duplicates"}},
		{name: "created again over a deletion delivered after its confirmation: no object held", change: func(h *History) {
			h.Agents[4].OldRedelivered = true
		}},
		{name: "two works of one fingerprint", change: func(h *History) {
			h.Agents = append(h.Agents, AgentEvent{Consumer: "a1", Name: "c1-validation", UID: "u4", Kind: "add", Fingerprint: "f2"})
		}, failed: []string{"duplicates"}},
		{name: "creates refused past the tolerance: created before the 404", change: func(h *History) {
			h.Meta.Creates, h.Meta.CreatesRefused = 100, 2
		}, failed: []string{"creates refused"}},
		{name: "a create refused within the tolerance: two replicas raced", change: func(h *History) {
			h.Meta.Creates, h.Meta.CreatesRefused = 100, 1
		}},
		{name: "two bundles of one name", change: func(h *History) {
			h.Bundles = append(h.Bundles, Bundle{Consumer: "a1", Name: "c1-setup", ID: "u7", Applied: "True"})
		}, failed: []string{"duplicates"}},
		{name: "kube: a second Job at one generation (created twice)", change: func(h *History) {
			h.Kube = append(h.Kube, KubeObject{Event: "added", Kind: "Job", Namespace: "default", Name: "validate-c1", UID: "k9", Cluster: "c1", Generation: "2",
				At: time.Date(2026, 12, 2, 5, 5, 0, 0, time.UTC)})
		}, failed: []string{"duplicates"}},
		{name: "kube: a namespace created again", change: func(h *History) {
			h.Kube = append(h.Kube, KubeObject{Event: "added", Kind: "Namespace", Name: "cluster-c1", UID: "k9", Cluster: "c1"})
		}, failed: []string{"duplicates"}},
		{name: "kube: Job left at the old generation (never recreated)", change: func(h *History) {
			h.Kube[len(h.Kube)-1].UID, h.Kube[len(h.Kube)-1].Generation = "k2", "1"
		}, failed: []string{"convergence"}},
		{name: "kube: Job missing", change: func(h *History) {
			h.Kube = h.Kube[:len(h.Kube)-1]
		}, failed: []string{"convergence"}},
		{name: "kube: namespace still terminating", change: func(h *History) {
			h.Kube[len(h.Kube)-2].Terminating = true
		}, failed: []string{"convergence"}},
		{name: "kube: deleted cluster's namespace left", change: func(h *History) {
			h.Kube = append(h.Kube, KubeObject{Event: "final", Kind: "Namespace", Name: "cluster-c2", UID: "k4", Cluster: "c2", Terminating: true})
		}, failed: []string{"convergence"}},
		{name: "kube: never listed at the end", change: func(h *History) {
			h.Meta.KubeListedAt = time.Time{}
		}, failed: []string{"convergence"}},
		{name: "kube: no real agent, nothing to check", change: func(h *History) {
			h.Meta.KubeClusters, h.Meta.KubeListedAt, h.Kube = nil, time.Time{}, nil
		}},
		{name: "moved backwards: a stale status accepted after a newer one", change: func(h *History) {
			h.API = append(h.API, APIRequest{Method: "PUT", Cluster: "c1", Status: true, Code: 200, Generation: 1, Applied: "False",
				At: time.Date(2026, 12, 2, 5, 5, 0, 0, time.UTC)})
		}, failed: []string{"moved backwards"}},
		{name: "moved backwards: a stale status refused (503) is no move", change: func(h *History) {
			h.API = append(h.API, APIRequest{Method: "PUT", Cluster: "c1", Status: true, Code: 503, Generation: 1, Applied: "False",
				At: time.Date(2026, 12, 2, 5, 5, 0, 0, time.UTC)})
		}},
		{name: "moved backwards: a bundle updated back to an older generation", change: func(h *History) {
			h.Agents = append(h.Agents, AgentEvent{Consumer: "a1", Name: "c1-setup", UID: "u1", Kind: "update", Fingerprint: "s1", Generation: "1",
				At: time.Date(2026, 12, 2, 5, 5, 0, 0, time.UTC)})
		}, failed: []string{"moved backwards"}},
		{name: "moved backwards: a bundle deleted and created again at an older generation", change: func(h *History) {
			at := time.Date(2026, 12, 2, 5, 5, 0, 0, time.UTC)
			h.Agents = append(h.Agents,
				AgentEvent{Consumer: "a1", Name: "c1-validation", UID: "u3", Kind: "update", Fingerprint: "f2", Generation: "2", Deleting: true, At: at},
				AgentEvent{Consumer: "a1", Name: "c1-validation", UID: "u3", Kind: "delete", Fingerprint: "f2", Generation: "2", At: at},
				AgentEvent{Consumer: "a1", Name: "c1-validation", UID: "u9", Kind: "add", Fingerprint: "f1", Generation: "1", At: at.Add(time.Second)})
		}, failed: []string{"duplicates", "moved backwards"}}, // generation 1's work again: a second uid of fingerprint f1
		{name: "moved backwards: a real agent's Job created again at an older generation", change: func(h *History) {
			h.Kube = append(h.Kube, KubeObject{Event: "added", Kind: "Job", Namespace: "default", Name: "validate-c1", UID: "k9", Cluster: "c1", Generation: "1",
				At: time.Date(2026, 12, 2, 5, 5, 0, 0, time.UTC)})
		}, failed: []string{"duplicates", "moved backwards"}}, // a second Job at generation 1
		{name: "RSS growing", change: func(h *History) {
			for i := range h.Samples {
				if h.Samples[i].Replica == "b" {
					h.Samples[i].RSSBytes += float64(i%61) * 0.5e6 // 3 MB/min
				}
			}
		}, failed: []string{"resources flat"}},
		{name: "goroutines growing", change: func(h *History) {
			for i := range h.Samples {
				if h.Samples[i].Replica == "a" {
					h.Samples[i].Goroutines += float64(i) // 6/min
				}
			}
		}, failed: []string{"resources flat"}},
		{name: "fds growing", change: func(h *History) {
			for i := range h.Samples {
				h.Samples[i].FDs += float64(i%61) / 3 // 2/min
			}
		}, failed: []string{"resources flat"}},
		{name: "steady only at both ends of a fault: too little steady time to judge (the 30-minute soak's killed replica)", change: func(h *History) {
			// Faults from 2m to 8m30s (each with its settling minute)
			// leave steady samples from 1m to 2m and from 9m30s to 10m:
			// 4 minutes apart, 1.5 minutes of them.
			for at := 2 * time.Minute; at <= 8*time.Minute+30*time.Second; at += 30 * time.Second {
				h.Faults = append(h.Faults, Fault{Name: "agent-remedy", At: h.Meta.Start.Add(at), End: h.Meta.Start.Add(at + time.Second)})
			}
			for i := range h.Samples {
				if h.Samples[i].Replica == "a" && h.Samples[i].At.After(h.Meta.Start.Add(5*time.Minute)) {
					h.Samples[i].Goroutines += 20 // a step during the faults, not a leak
				}
			}
		}},
		{name: "growth too short to judge", change: func(h *History) {
			h.Samples = slices.DeleteFunc(h.Samples, func(s Sample) bool { return s.At.After(h.Meta.Start.Add(3 * time.Minute)) })
			for i := range h.Samples {
				h.Samples[i].RSSBytes += float64(i) * 1e6
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := checkChanged(t, c.change)
			if got := r.Failed(); !slices.Equal(got, c.failed) {
				t.Errorf("failed %v, want %v\n%+v", got, c.failed, r.Verdicts)
			}
			if r.Pass() != (len(c.failed) == 0) {
				t.Errorf("Pass() = %v with failures %v", r.Pass(), r.Failed())
			}
		})
	}
}

// TestFigures checks the figures of the passing history: latency by
// window, the storm of the API outage and the convergence after it.
func TestFigures(t *testing.T) {
	r := checkChanged(t, func(*History) {})
	want := map[string]Window{
		"during api-503": {Name: "during api-503", Events: 2, Reported: 2, P50MS: 5, P99MS: 3000},
		"steady":         {Name: "steady", Events: 2, Reported: 2, P50MS: 6, P99MS: 8},
	}
	for _, w := range r.Latency {
		if w != want[w.Name] {
			t.Errorf("window %+v, want %+v", w, want[w.Name])
		}
		delete(want, w.Name)
	}
	if len(want) > 0 {
		t.Errorf("windows missing: %v", want)
	}
	if len(r.Storms) != 1 || r.Storms[0].PutsPerClusterPerMin != 30 || r.Storms[0].Clusters != 2 {
		t.Errorf("storms %+v, want 2 PUTs over 2 clusters in 2s: 30 per cluster per minute", r.Storms)
	}
	if len(r.Convergence) != 1 || r.Convergence[0].Never != 0 || r.Convergence[0].P50S != 1 || r.Convergence[0].P99S != 419.008 {
		t.Errorf("convergence %+v, want c1 1s after the outage, c2 at its next status (419.008s)", r.Convergence)
	}
	if r.MaestroReqPerEvent != 2 {
		t.Errorf("maestro requests per event %v, want 12/6", r.MaestroReqPerEvent)
	}
}

// TestConvergenceOnlyExistingClusters: the time to converge after a fault
// counts only the clusters that existed when it began. A cluster first
// published later (the deletion wave's new ids) has its first Applied
// long after an early fault, which the 30-minute soak read as a p99 of
// 1,590 s after its first recreation wave.
func TestConvergenceOnlyExistingClusters(t *testing.T) {
	first := time.Date(2026, 12, 2, 5, 30, 0, 0, time.UTC) // after the outage
	r := checkChanged(t, func(h *History) {
		h.Published = append(h.Published, Published{EventID: "e7", Cluster: "c3", Generation: 1, At: first})
		h.API = append(h.API, APIRequest{Method: "PUT", Cluster: "c3", Status: true, Code: 200, Generation: 1, Applied: "True", Finalized: "False", At: first.Add(time.Second)})
	})
	if len(r.Convergence) != 1 || r.Convergence[0].Clusters != 2 || r.Convergence[0].P50S != 1 || r.Convergence[0].P99S != 419.008 {
		t.Errorf("convergence %+v, want c1 and c2 only (c3 was first published after the outage)", r.Convergence)
	}
}

// TestConvergenceCountsClusters: a cluster that fails convergence for
// several reasons (its status and its objects on the kube-apiserver)
// counts once, with every reason. The ackearly soak read "33 of 300
// clusters not converged" for 30 clusters, 3 of them on the real agent.
func TestConvergenceCountsClusters(t *testing.T) {
	cases := []struct {
		name   string
		change func(h *History)
		value  float64
		detail string
	}{
		{name: "status and kube-apiserver of one cluster", change: func(h *History) {
			h.API = slices.DeleteFunc(h.API, func(a APIRequest) bool { return a.Cluster == "c1" && a.Generation == 2 && a.Code == 200 })
			h.Kube = h.Kube[:len(h.Kube)-1]
		}, value: 1, detail: "1 of 2 clusters not converged: c1: newest status at generation 1, published 2 + kube-apiserver: Job missing"},
		{name: "never listed: every real agent's cluster", change: func(h *History) {
			h.Meta.KubeListedAt = time.Time{}
		}, value: 2, detail: "2 of 2 clusters not converged: c1: kube-apiserver: not listed at the end; c2: kube-apiserver: not listed at the end"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := checkChanged(t, c.change)
			i := slices.IndexFunc(r.Verdicts, func(v Verdict) bool { return v.Name == "convergence" })
			if v := r.Verdicts[i]; v.Value != c.value || v.Detail != c.detail || v.Pass {
				t.Errorf("convergence %+v, want value %v, detail %q", v, c.value, c.detail)
			}
		})
	}
}

// drainResend adds, to h, the drain's resend of cluster id at generation
// gen 5 s after the last round, and its status reported a second later.
func drainResend(h *History, id string, gen int, applied string) {
	at := h.Meta.PublishEnd.Add(5 * time.Second)
	h.Published = append(h.Published, Published{EventID: "d-" + id, Cluster: id, Generation: gen, At: at})
	h.API = append(h.API, APIRequest{Method: "PUT", Cluster: id, Status: true, Code: 200, Generation: gen, Applied: applied, Finalized: "False", At: at.Add(time.Second)})
}

// checkChanged checks the passing history of testdata/pass after change.
func checkChanged(t *testing.T, change func(h *History)) *Report {
	t.Helper()
	h, err := Load("testdata/pass")
	if err != nil {
		t.Fatal(err)
	}
	change(h)
	return Check(h)
}

// onlyVerdict runs one invariant's check on h and returns the verdict it
// made, failing the test when it made none or more than one.
func onlyVerdict(t *testing.T, check func(*Report, *History), h *History) Verdict {
	t.Helper()
	r := &Report{}
	check(r, h)
	if len(r.Verdicts) != 1 {
		t.Fatalf("%d verdicts, want 1", len(r.Verdicts))
	}
	return r.Verdicts[0]
}
