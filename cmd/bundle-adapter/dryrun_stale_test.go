package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// The sequence of issue 41 as a chain of dry-runs of the onprem example:
// generation 1, then generation 2 applied (the Job's bundle recreated),
// then the generation-1 event again (a redelivery on a replica that never
// saw generation 2) while the API answers generation 2. Before the stale
// guard, the last run updated the setup bundle back to generation 1,
// deleted the generation-2 Job's bundle and reported observed_generation 1.
// Now it writes nothing, reports nothing, and says why.
func TestDryRunStaleEventWritesNothing(t *testing.T) {
	dir := t.TempDir()
	event := func(gen int) string {
		raw, err := os.ReadFile(ex + "onprem/dryrun/event.json")
		if err != nil {
			t.Fatal(err)
		}
		var ev map[string]any
		if err := json.Unmarshal(raw, &ev); err != nil {
			t.Fatal(err)
		}
		ev["data"].(map[string]any)["generation"] = gen
		return writeJSON(t, dir, "event.json", ev)
	}
	api := func(gen int) string {
		return writeJSON(t, dir, "api.json", map[string]any{"GET /api/hyperfleet/v1/clusters/c1": map[string]any{
			"status": 200, "body": map[string]any{"id": "c1", "name": "demo-cluster", "generation": gen}}})
	}
	steps := []struct {
		name         string
		event, api   int
		confirm      bool // the agent confirmed every deletion before this step
		wantWrites   bool
		wantPUT      bool
		wantVerdict  string
		wantSkipped  bool
		wantOutcomes string
	}{
		{name: "generation 1", event: 1, api: 1, wantWrites: true, wantPUT: true, wantVerdict: "current",
			wantOutcomes: "clusterSetup:create/done validationJob:create/done"},
		{name: "generation 2: the Job's bundle deleted to be recreated", event: 2, api: 2, wantWrites: true, wantPUT: true,
			wantVerdict: "current", wantOutcomes: "clusterSetup:update/done validationJob:recreate/pending"},
		{name: "generation 2 again: created at generation 2", event: 2, api: 2, confirm: true, wantWrites: true, wantPUT: true,
			wantVerdict: "current", wantOutcomes: "clusterSetup:unchanged/done validationJob:create/done"},
		{name: "the generation-1 redelivery, the API at generation 2", event: 1, api: 2, wantVerdict: "stale", wantSkipped: true,
			wantOutcomes: "clusterSetup:/ validationJob:/"},
		{name: "an event ahead of the API", event: 3, api: 2, wantVerdict: "ahead",
			wantOutcomes: "clusterSetup:/ validationJob:/"},
	}
	state := ""
	for i, st := range steps {
		next := filepath.Join(dir, "state-"+string(rune('a'+i))+".json")
		if st.confirm {
			confirmDeletions(t, state)
		}
		args := []string{"dry-run", "--config", ex + "onprem/adapter-config.yaml", "--task-config", ex + "onprem/task-config.yaml",
			"--event", event(st.event), "--api-responses", api(st.api), "--now", "2026-11-30T10:00:00Z",
			"--output", "json", "--maestro-state-out", next}
		if state != "" {
			args = append(args, "--maestro-state", state)
		}
		code, out, errOut := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s", st.name, code, errOut)
		}
		state = next
		var r struct {
			report
			Generation struct {
				Event, API int64
				Verdict    string
			} `json:"generation"`
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("%s: %v\n%s", st.name, err, out)
		}
		if got := outcomes(r.report); got != st.wantOutcomes {
			t.Errorf("%s: %s, want %s", st.name, got, st.wantOutcomes)
		}
		if r.Generation.Verdict != st.wantVerdict || r.Generation.Event != int64(st.event) || r.Generation.API != int64(st.api) {
			t.Errorf("%s: generation check %+v, want event %d, API %d: %s", st.name, r.Generation, st.event, st.api, st.wantVerdict)
		}
		if r.Skipped != st.wantSkipped {
			t.Errorf("%s: skipped %v, want %v", st.name, r.Skipped, st.wantSkipped)
		}
		writes, puts := 0, 0
		for _, c := range r.MaestroCalls {
			if c["verb"] != "get" && c["verb"] != "list" {
				writes++
			}
		}
		for _, c := range r.APICalls {
			if c.Method != "GET" {
				puts++
			}
		}
		if (writes > 0) != st.wantWrites || (puts > 0) != st.wantPUT {
			t.Errorf("%s: %d Maestro writes, %d API writes; want writes %v, status PUT %v: %v %v",
				st.name, writes, puts, st.wantWrites, st.wantPUT, r.MaestroCalls, r.APICalls)
		}
	}
}

// writeJSON writes v as dir/name and returns the path.
func writeJSON(t *testing.T, dir, name string, v any) string {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// confirmDeletions has the agent confirm every pending deletion of the
// Maestro state file: the bundles being deleted are gone.
func confirmDeletions(t *testing.T, path string) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var s map[string]any
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	s["deleteBehavior"] = "immediate"
	writeJSON(t, filepath.Dir(path), filepath.Base(path), s)
}
