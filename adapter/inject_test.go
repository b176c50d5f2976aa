package adapter_test

import (
	"strings"
	"testing"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/hyperfleetapi/apistub"
)

// apiCall is one recorded call as "METHOD path body-as-JSON".
func apiCalls(h *harness) []apistub.Call { return h.api.Calls() }

// Event values can steer neither the HyperFleet API URLs nor the JSON
// bodies: a value is escaped as one path segment (or query value), a URL
// that leaves the API is refused before anything is sent and the event is
// dead-lettered, a value inside a JSON string stays inside it, and a body
// that is not JSON is never sent.
func TestHostileEventValuesInAPICalls(t *testing.T) {
	const injection = `", "observed_generation": 999, "x": "y`
	tests := []struct {
		name   string
		fields map[string]any
		// want lists the calls sent, "METHOD path"; wantBody, when set, is
		// the body of the last one.
		want      []string
		wantBody  map[string]any
		wantError string // in the event's first error; "" = success
		dead      bool   // dead-lettered (permanent), not retried
	}{
		{name: "hash in id", fields: map[string]any{"id": "c1#"},
			want: []string{"PUT /api/hyperfleet/v1/clusters/c1%23/statuses"}},
		{name: "query in id", fields: map[string]any{"id": "c1?x="},
			want: []string{"PUT /api/hyperfleet/v1/clusters/c1%3Fx=/statuses"}},
		{name: "slash in id", fields: map[string]any{"id": "a/b"},
			want: []string{"PUT /api/hyperfleet/v1/clusters/a%2Fb/statuses"}},
		{name: "dot-dot in id", fields: map[string]any{"id": "../../x"},
			wantError: `".." segment`, dead: true},
		{name: "href to another host", fields: map[string]any{"href": "https://elsewhere.example.com/steal"},
			want:      []string{"PUT /api/hyperfleet/v1/clusters/x/statuses"},
			wantError: "allowed_origins", dead: true},
		{name: "href inside the API", fields: map[string]any{"href": "/api/hyperfleet/v1/clusters/x"},
			want: []string{"PUT /api/hyperfleet/v1/clusters/x/statuses", "POST /api/hyperfleet/v1/clusters/x"}},
		{name: "JSON injection into a string", fields: map[string]any{"name": injection},
			want: []string{"PUT /api/hyperfleet/v1/clusters/x/statuses",
				"PUT /api/hyperfleet/v1/clusters/x/names?name=%22%2C+%22observed_generation%22%3A+999%2C+%22x%22%3A+%22y"},
			wantBody: map[string]any{"a": injection}},
		{name: "body that is not JSON", fields: map[string]any{"broken": true},
			want: []string{"PUT /api/hyperfleet/v1/clusters/x/statuses"}, wantError: "post broken: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, "")
			h.useTask("testdata/task-inject.yaml")
			res := h.event(tt.fields)
			var got []string
			for _, c := range apiCalls(h) {
				got = append(got, c.Method+" "+c.Path)
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("calls:\n got  %q\n want %q", got, tt.want)
			}
			if tt.wantBody != nil && len(got) > 0 {
				body := apiCalls(h)[len(got)-1].Body
				m, ok := body.(map[string]any)
				if !ok || len(m) != len(tt.wantBody) || m["a"] != tt.wantBody["a"] {
					t.Errorf("body = %#v, want %#v", body, tt.wantBody)
				}
			}
			if tt.wantError == "" {
				if res.Err() != nil {
					t.Fatalf("unexpected error: %v", res.Err())
				}
				return
			}
			if res.Err() == nil || !strings.Contains(res.Err().Error(), tt.wantError) {
				t.Fatalf("error = %v, want it to contain %q", res.Err(), tt.wantError)
			}
			if want := map[bool]adapter.Disposition{true: adapter.DeadLetter, false: adapter.Retry}[tt.dead]; res.Disposition() != want {
				t.Errorf("disposition %v, want %v", res.Disposition(), want)
			}
		})
	}
}

// Event values that can never be used are rejected once, with the reason,
// and dead-lettered: redelivering the same event cannot fix them. Nothing
// is written to Maestro.
func TestInvalidEventValuesAreDeadLettered(t *testing.T) {
	tests := []struct {
		name   string
		fields map[string]any
		want   string // in the error; "" = accepted
		gen    any    // observed_generation reported when accepted
	}{
		{name: "generation 1e300", fields: map[string]any{"generation": 1e300}, want: `param "generation"`},
		{name: "generation 1.9", fields: map[string]any{"generation": 1.9}, want: `param "generation"`},
		{name: "generation abc", fields: map[string]any{"generation": "abc"}, want: `param "generation"`},
		{name: "generation NaN text", fields: map[string]any{"generation": "NaN"}, want: `param "generation"`},
		{name: "empty id", fields: map[string]any{"id": ""}, want: `param "clusterId"`},
		{name: "object id", fields: map[string]any{"id": map[string]any{"a": "b"}}, want: `param "clusterId"`},
		{name: "list id", fields: map[string]any{"id": []any{"a"}}, want: `param "clusterId"`},
		{name: "NUL in id", fields: map[string]any{"id": "c1\x00"}, want: `param "clusterId"`},
		{name: "generation as text", fields: map[string]any{"generation": "7"}, gen: float64(7)},
		{name: "generation 1e3", fields: map[string]any{"generation": 1e3}, gen: float64(1000)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, "")
			res := h.event(tt.fields)
			if tt.want == "" {
				if res.Err() != nil {
					t.Fatal(res.Err())
				}
				if got := h.lastStatus()["observed_generation"]; got != tt.gen {
					t.Errorf("observed_generation = %v, want %v", got, tt.gen)
				}
				return
			}
			if res.Err() == nil || !strings.Contains(res.Err().Error(), tt.want) {
				t.Fatalf("error = %v, want it to name %s", res.Err(), tt.want)
			}
			if res.Disposition() != adapter.DeadLetter || res.Transient() {
				t.Errorf("disposition %v (transient %v), want dead-letter", res.Disposition(), res.Transient())
			}
			if h.writes() != 0 {
				t.Errorf("Maestro writes: %v", h.calls())
			}
			t.Logf("rejected: %v", res.Err())
		})
	}
}
