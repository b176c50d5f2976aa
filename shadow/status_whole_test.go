package shadow_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// The shadow compares the whole status body, not only each condition's
// type, status and reason: a live status that differs only in data, in a
// condition's message or in observed_generation is a disagreement, logged
// with the field and both values and counted with its field class; one
// that differs only in times (which cannot agree) agrees.
func TestShadowComparesTheWholeStatus(t *testing.T) {
	tests := []struct {
		name   string
		change func(st map[string]any)
		field  string // "" agrees
		logs   []string
	}{
		{"data only", func(st map[string]any) { st["data"].(map[string]any)["jobPending"] = "cluster1" },
			"data", []string{`data.jobPending: desired 0, live \"cluster1\"`}},
		{"data field only live holds", func(st map[string]any) { st["data"].(map[string]any)["consumer"] = "cluster1" },
			"data", []string{`data.consumer: desired absent, live \"cluster1\"`}},
		{"message only", func(st map[string]any) { cond(st, "Health")["message"] = "hello" },
			"message", []string{`conditions[Health].message: desired \"\", live \"hello\"`}},
		{"observed_generation only", func(st map[string]any) { st["observed_generation"] = 7 },
			"observed_generation", []string{`observed_generation: desired 1, live 7`}},
		{"times only", func(st map[string]any) {
			st["observed_time"] = "2020-01-01T00:00:00Z"
			st["last_report_time"] = "2020-01-01T00:00:00Z"
			cond(st, "Health")["last_transition_time"] = "2020-01-01T00:00:00Z"
		}, "", nil},
		{"secret redacted", func(st map[string]any) { st["data"].(map[string]any)["token"] = "s3cr3t" },
			"data", []string{`data.token: desired absent, live REDACTED`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFleet(t)
			f.live("testdata/task.yaml", event("a", nil))
			var st map[string]any
			if err := json.Unmarshal(f.statuses["a"], &st); err != nil {
				t.Fatal(err)
			}
			tt.change(st)
			f.statuses["a"], _ = json.Marshal(st)
			f.api = f.restub()
			r := f.shadow("testdata/task.yaml")
			res := r.s.Process(context.Background(), event("a", nil))
			if res.Disposition() != adapter.Ack {
				t.Fatalf("disposition %v (%v)", res.Disposition(), res.Error)
			}
			want := map[string]int{"unchanged agrees": 2, "status agrees": 1}
			if tt.field != "" {
				want = map[string]int{"unchanged agrees": 2, "status differs": 1}
			}
			if !equalCounts(r.counts, want) {
				t.Errorf("decisions %v, want %v\nlog:\n%s", r.counts, want, r.logs.String())
			}
			if tt.field != "" && r.fields["status"] != tt.field {
				t.Errorf("status field class %q, want %q", r.fields["status"], tt.field)
			}
			logs := r.logs.String()
			for _, w := range tt.logs {
				if !strings.Contains(logs, w) {
					t.Errorf("log lacks %s:\n%s", w, logs)
				}
			}
			if strings.Contains(logs, "s3cr3t") {
				t.Errorf("a secret in the log:\n%s", logs)
			}
		})
	}
}

func cond(st map[string]any, typ string) map[string]any {
	for _, c := range st["conditions"].([]any) {
		if m := c.(map[string]any); m["type"] == typ {
			return m
		}
	}
	panic("no condition " + typ)
}
