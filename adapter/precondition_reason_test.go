package adapter_test

import "testing"

// An unmet precondition's skip reason is hyperfleet-adapter's
// (formatConditionDetails): every failed structured condition as
// "field operator value (actual: x)" with Go's %v of the values, joined
// by "; "; an expression says "no specific details available".
func TestPreconditionSkipReasonWording(t *testing.T) {
	spec := map[string]any{"region": "eu", "zones": []any{"z3"}}
	tests := []struct {
		name   string
		fields map[string]any
		want   string
	}{
		{
			name:   "one condition",
			fields: map[string]any{"phase": "Pending", "spec": spec},
			want:   "precondition 'check' not met: phase equals Ready (actual: Pending)",
		},
		{
			name:   "several conditions and lists",
			fields: map[string]any{"size": int64(3), "tier": "c", "spec": map[string]any{"region": "us", "zones": []any{int64(1), "x"}}},
			want:   "precondition 'check' not met: size greaterThan 5 (actual: 3); tier in [a b] (actual: c); spec.zones contains z3 (actual: [1 x])",
		},
		{
			name:   "exists",
			fields: map[string]any{"spec": map[string]any{"zones": []any{"z3"}}},
			want:   "precondition 'check' not met: spec.region exists <nil> (actual: <nil>)",
		},
		{
			name:   "expression",
			fields: map[string]any{"spec": spec, "proceed": false},
			want:   "precondition 'allowed' not met: no specific details available",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, "")
			h.useTask("testdata/task-precondition-reason.yaml")
			res := h.event(tt.fields)
			if res.Err() != nil {
				t.Fatal(res.Err())
			}
			if res.SkipReason != tt.want {
				t.Errorf("skip reason\n got  %s\n want %s", res.SkipReason, tt.want)
			}
			if got := h.lastStatus()["reason"]; got != tt.want {
				t.Errorf("adapter.skipReason\n got  %v\n want %s", got, tt.want)
			}
		})
	}
}
