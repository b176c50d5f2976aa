package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sbsRun is a contender's run: a create round at creates/s, then three
// unchanged rounds of 1,000 events at unchanged/s.
func sbsRun(contender, agent string, creates, unchanged float64) *sbsResult {
	r := &sbsResult{Contender: contender, Clusters: 1000, Agent: agent,
		Rounds: []sbsRound{{Name: "creates", Events: 1000, Seconds: 1000 / creates, PerS: creates,
			MaestroREST: map[string]int64{"GET": 1000}}}}
	for i := 1; i <= 3; i++ {
		r.Rounds = append(r.Rounds, sbsRound{Name: "unchanged", Events: 1000, Seconds: 1000 / unchanged, PerS: unchanged,
			MaestroREST: map[string]int64{"GET": 1000, "PUT": 500}})
	}
	return r
}

// TestSideBySideFloors: each floor of issue 47 against the anchor passes,
// misses, or does not apply, and a partial run of either contender is a
// MISS naming it, never a ratio.
func TestSideBySideFloors(t *testing.T) {
	anchor := func() *sbsResult { return sbsRun("anchor", "none", 26.5, 40) }
	tests := []struct {
		name           string
		anchor, ours   *sbsResult
		want           [2]string // verdicts: unchanged, creates
		wantNote       string
		wantUnchangedX float64
	}{
		{"both met", anchor(), sbsRun("bundle-adapter", "none", 30, 1000), [2]string{"PASS", "PASS"}, "", 25},
		{"unchanged 19x", anchor(), sbsRun("bundle-adapter", "none", 30, 760), [2]string{"MISS", "PASS"}, "", 19},
		{"creates below the anchor's", anchor(), sbsRun("bundle-adapter", "none", 20.5, 1000), [2]string{"PASS", "MISS"}, "", 25},
		{"creates with an agent: not this floor", sbsRun("anchor", "simulated", 26.5, 40), sbsRun("bundle-adapter", "simulated", 30, 1000),
			[2]string{"PASS", "N/A"}, "", 25},
		{"ours lost an event", anchor(), func() *sbsResult {
			r := sbsRun("bundle-adapter", "none", 30, 1000)
			r.Rounds[2].Lost, r.Rounds[2].FirstError = 1, "no status reported in time"
			return r
		}(), [2]string{"MISS", "MISS"}, "bundle-adapter: 1 unreported", 0},
		{"the anchor reported unhealthy", func() *sbsResult {
			r := anchor()
			r.Rounds[1].Bad, r.Rounds[1].FirstBad = 3, "Health False: ExecutionFailed:resources"
			return r
		}(), sbsRun("bundle-adapter", "none", 30, 1000), [2]string{"MISS", "MISS"}, "the anchor: 0 unreported, 3 unhealthy", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, err := compare(tt.anchor, tt.ours)
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Floors) != 2 {
				t.Fatalf("%d floors", len(rep.Floors))
			}
			for i, f := range rep.Floors {
				if f.Verdict != tt.want[i] {
					t.Errorf("%s: %s, want %s (%+v)", f.Name, f.Verdict, tt.want[i], f)
				}
				if tt.wantNote != "" && !strings.Contains(f.Note, tt.wantNote) {
					t.Errorf("%s: note %q lacks %q", f.Name, f.Note, tt.wantNote)
				}
			}
			if got := rep.Floors[0].Measured; tt.wantUnchangedX > 0 && (got < tt.wantUnchangedX-0.01 || got > tt.wantUnchangedX+0.01) {
				t.Errorf("unchanged ratio %v, want %v", got, tt.wantUnchangedX)
			}
		})
	}
}

// The unchanged rate is the unchanged rounds' events over their summed
// time (a slow first round weighs as it took), the create round apart; and
// requests per event are counted over the same rounds.
func TestSummarize(t *testing.T) {
	r := sbsRun("bundle-adapter", "none", 50, 1000)
	r.Rounds[1].Seconds = 4 // 250/s in the first round after the creates
	s := summarize(r)
	if want := 3000 / 6.0; s.UnchangedPerS < want-0.01 || s.UnchangedPerS > want+0.01 {
		t.Errorf("unchanged %v/s, want %v", s.UnchangedPerS, want)
	}
	if s.CreatesPerS != 50 || s.RESTPerCreateEvent != 1 || s.RESTPerUnchangedEvent != 1.5 {
		t.Errorf("got %+v", s)
	}
}

// Comparing runs that differ (size, agent, rounds, or the files named in
// the wrong order) is refused.
func TestSideBySideRefusesUnlikeRuns(t *testing.T) {
	a, o := sbsRun("anchor", "none", 26, 40), sbsRun("bundle-adapter", "none", 30, 1000)
	cases := map[string]func(){
		"order":    func() { a, o = o, a },
		"clusters": func() { o.Clusters = 10 },
		"agent":    func() { o.Agent = "simulated" },
		"rounds":   func() { o.Rounds = o.Rounds[:2] },
	}
	for name, change := range cases {
		a, o = sbsRun("anchor", "none", 26, 40), sbsRun("bundle-adapter", "none", 30, 1000)
		change()
		if _, err := compare(a, o); err == nil {
			t.Errorf("%s: compared", name)
		}
	}
}

func TestParseAnchorStatus(t *testing.T) {
	tests := []struct {
		body, bad, available string
	}{
		{`{"conditions":[{"type":"Applied","status":"False"},{"type":"Available","status":"False"},{"type":"Health","status":"True"}]}`, "", "False"},
		{`{"conditions":[{"type":"Health","status":"False","reason":"ExecutionFailed:resources","message":"boom"}]}`,
			"Health False: ExecutionFailed:resources: boom", ""},
		{`{"conditions":[{"type":"Available","status":"True"}]}`, "status reports no Health condition", "True"},
		{`not json`, "status body is not JSON", ""},
	}
	for _, tt := range tests {
		st := parseAnchorStatus([]byte(tt.body))
		if !strings.HasPrefix(st.bad, tt.bad) || (tt.bad == "") != (st.bad == "") || st.available != tt.available {
			t.Errorf("%s: got bad %q available %q", tt.body, st.bad, st.available)
		}
	}
}

// writeFiles copies the adapter config and the template byte for byte and
// changes only the template's path in the task config; a task config
// without that path, or with it twice, is refused rather than run with the
// chart's path.
func TestContenderWriteFiles(t *testing.T) {
	example := t.TempDir()
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(example, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	adapterCfg := "adapter:\n  name: x\n"
	task := "resources:\n  - name: mw\n    manifest:\n      ref: " + anchorManifestRef + "\n"
	write(anchorAdapterConfig, adapterCfg)
	write(anchorManifest, "kind: ManifestWork\n")
	write(anchorTaskConfig, task)
	c := &contender{name: "anchor", topic: "t", subscription: "s"}
	dir := t.TempDir()
	if err := c.writeFiles(example, dir, "amqp://guest:guest@127.0.0.1:5672/"); err != nil {
		t.Fatal(err)
	}
	read := func(p string) string {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if got := read(c.files.Adapter); got != adapterCfg {
		t.Errorf("adapter config changed: %q", got)
	}
	if got, want := read(c.files.Task), strings.Replace(task, anchorManifestRef, filepath.Join(dir, anchorManifest), 1); got != want {
		t.Errorf("task config %q, want %q", got, want)
	}
	if got := read(filepath.Join(dir, anchorManifest)); got != "kind: ManifestWork\n" {
		t.Errorf("template changed: %q", got)
	}
	for _, bad := range []string{"resources: []\n", task + task} {
		write(anchorTaskConfig, bad)
		if err := c.writeFiles(example, t.TempDir(), "amqp://x"); err == nil {
			t.Errorf("task config %q accepted", bad)
		}
	}
}
