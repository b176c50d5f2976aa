package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bundle-adapter/bundle-adapter/bench/soak/check"
)

// TestRemedy: a real agent is restarted (hack/agent.sh stop, start) only
// for a bundle Maestro holds deleting whose objects are gone from the
// kube-apiserver for remedyAfter, and the restart is recorded as the fault
// agent-remedy naming the bundle.
func TestRemedy(t *testing.T) {
	cases := []struct {
		name    string
		bundles string             // Maestro's list
		live    []check.KubeObject // what the kube-apiserver holds
		restart bool
	}{
		{name: "deleting, objects gone: lost", restart: true,
			bundles: `{"id":"u1","consumer_name":"r0","metadata":{"name":"c1-validation","annotations":{"hyperfleet.io/generation":"2"},"deletionTimestamp":"2026-12-02T08:00:00Z"}}`},
		{name: "deleting, its Job still there: the agent is deleting",
			bundles: `{"id":"u1","consumer_name":"r0","metadata":{"name":"c1-validation","annotations":{"hyperfleet.io/generation":"2"},"deletionTimestamp":"2026-12-02T08:00:00Z"}}`,
			live:    []check.KubeObject{{Kind: "Job", Namespace: "default", Name: "validate-c1", UID: "k1", Cluster: "c1", Generation: "2"}}},
		{name: "deleting, only a Job of another generation: lost", restart: true,
			bundles: `{"id":"u1","consumer_name":"r0","metadata":{"name":"c1-validation","annotations":{"hyperfleet.io/generation":"2"},"deletionTimestamp":"2026-12-02T08:00:00Z"}}`,
			live:    []check.KubeObject{{Kind: "Job", Namespace: "default", Name: "validate-c1", UID: "k1", Cluster: "c1", Generation: "3"}}},
		{name: "deleting setup, its Namespace still there",
			bundles: `{"id":"u1","consumer_name":"r0","metadata":{"name":"c1-setup","deletionTimestamp":"2026-12-02T08:00:00Z"}}`,
			live:    []check.KubeObject{{Kind: "Namespace", Name: "cluster-c1", UID: "k1", Cluster: "c1"}}},
		{name: "not deleting, objects gone: not a deletion",
			bundles: `{"id":"u1","consumer_name":"r0","metadata":{"name":"c1-setup"}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			calls := filepath.Join(dir, "calls")
			script := "#!/bin/sh\necho \"$@\" >>" + calls + "\n"
			if err := os.WriteFile(filepath.Join(dir, "agent.sh"), []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			maestro := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if !strings.Contains(r.URL.Query().Get("search"), "consumer_name='r0'") {
					t.Errorf("search %q does not name the consumer", r.URL.Query().Get("search"))
				}
				_, _ = w.Write([]byte(`{"total":1,"items":[` + c.bundles + `]}`))
			}))
			defer maestro.Close()
			rec, err := newRecorder(filepath.Join(dir, check.Files.Faults))
			if err != nil {
				t.Fatal(err)
			}
			kw := &kubeWatch{live: map[string]check.KubeObject{}}
			for _, o := range c.live {
				kw.live[o.Kind+"/"+o.Namespace+"/"+o.Name] = o
			}
			h := &harness{o: &options{hackDir: dir, maestroREST: maestro.URL}, sourceID: "s", real: []string{"r0"}, kube: kw, start: time.Now()}
			m := &remedy{h: h, f: &faulter{h: h, rec: rec}, gone: map[string]time.Time{}, restarts: map[string]int{}}
			m.check(context.Background(), "r0") // first seen gone: not yet
			if _, err := os.Stat(calls); err == nil {
				t.Fatal("restarted at the first sight of the deletion")
			}
			for id := range m.gone {
				m.gone[id] = m.gone[id].Add(-remedyAfter) // remedyAfter later
			}
			m.check(context.Background(), "r0")
			if err := rec.close(); err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(calls)
			faults, _ := os.ReadFile(filepath.Join(dir, check.Files.Faults))
			if c.restart {
				if string(got) != "stop r0\nstart r0\n" {
					t.Errorf("agent.sh calls %q, want stop r0 then start r0", got)
				}
				if !strings.Contains(string(faults), `"name":"agent-remedy"`) || !strings.Contains(string(faults), `"bundles":["c1-`) {
					t.Errorf("faults.jsonl %s, want an agent-remedy naming the bundle", faults)
				}
				return
			}
			if len(got) > 0 || len(faults) > 0 {
				t.Errorf("restarted (%q, faults %s), want nothing", got, faults)
			}
		})
	}
}
