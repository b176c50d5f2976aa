package shadow

import (
	"reflect"
	"strings"
	"testing"
)

func TestLiveStatusPicksTheAdapter(t *testing.T) {
	tests := []struct {
		name, body string
		ok         bool
		wantReason string
		wantErr    bool
	}{
		{"list", `{"kind":"AdapterStatusList","items":[{"adapter":"other","conditions":[{"type":"Applied","status":"False","reason":"X"}]},{"adapter":"me","conditions":[{"type":"Applied","status":"True","reason":"Applied"}]}]}`, true, "Applied", false},
		{"bare array", `[{"adapter":"me","conditions":[{"type":"Applied","status":"True","reason":"Done"}]}]`, true, "Done", false},
		{"not there", `{"items":[{"adapter":"other"}]}`, false, "", false},
		{"empty list", `{"items":[]}`, false, "", false},
		{"not JSON", `<html>`, false, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, ok, err := liveStatus([]byte(tt.body), "me")
			if (err != nil) != tt.wantErr || ok != tt.ok {
				t.Fatalf("ok %v err %v, want ok %v err %v", ok, err, tt.ok, tt.wantErr)
			}
			if ok {
				if got := conditionsByType(s["conditions"])["Applied"]["reason"]; got != tt.wantReason {
					t.Errorf("reason %q, want %q", got, tt.wantReason)
				}
			}
		})
	}
}

// The condition rows of the comparison before it covered the whole
// status, on statusDiff.
func TestStatusDiffConditions(t *testing.T) {
	c := func(typ, status, reason string) any {
		return map[string]any{"type": typ, "status": status, "reason": reason}
	}
	st := func(conds ...any) map[string]any { return map[string]any{"conditions": conds} }
	tests := []struct {
		name       string
		want, live map[string]any
		diff       []string
		field      string
	}{
		{"same, any order", st(c("A", "True", "x"), c("B", "False", "y")), st(c("B", "False", "y"), c("A", "True", "x")), nil, ""},
		{"status differs", st(c("A", "True", "x")), st(c("A", "False", "x")), []string{`conditions[A].status: desired "True", live "False"`}, FieldCondition},
		{"reason differs", st(c("A", "True", "x")), st(c("A", "True", "z")), []string{`conditions[A].reason: desired "x", live "z"`}, FieldCondition},
		{"missing live", st(c("A", "True", "x")), st(), []string{`conditions[A]: desired {"reason":"x","status":"True","type":"A"}, live absent`}, FieldCondition},
		{"extra live", st(), st(c("A", "True", "x")), []string{`conditions[A]: desired absent, live {"reason":"x","status":"True","type":"A"}`}, FieldCondition},
		{"times never differ", map[string]any{"observed_time": "1", "conditions": []any{map[string]any{"type": "A", "last_transition_time": "1"}}},
			map[string]any{"observed_time": "2", "conditions": []any{map[string]any{"type": "A", "last_transition_time": "2"}}}, nil, ""},
		{"condition outranks data", map[string]any{"data": map[string]any{"a": 1}, "conditions": []any{c("A", "True", "x")}},
			map[string]any{"data": map[string]any{"a": 2}, "conditions": []any{c("A", "False", "x")}},
			[]string{`conditions[A].status: desired "True", live "False"`, `data.a: desired 1, live 2`}, FieldCondition},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, field := statusDiff(tt.want, tt.live)
			if !reflect.DeepEqual(got, tt.diff) || field != tt.field {
				t.Errorf("got %q (%q), want %q (%q)", got, field, tt.diff, tt.field)
			}
		})
	}
}

func TestObjectDiff(t *testing.T) {
	tests := []struct {
		name          string
		desired, live map[string]any
		want          []string
	}{
		{"server fields ignored", map[string]any{"data": map[string]any{"a": "1"}},
			map[string]any{"data": map[string]any{"a": "1"}, "metadata": map[string]any{"uid": "u"}, "status": map[string]any{"x": 1}}, nil},
		{"numbers by value", map[string]any{"n": int64(2)}, map[string]any{"n": float64(2)}, nil},
		{"our annotations ignored", map[string]any{"metadata": map[string]any{"annotations": map[string]any{"bundle-adapter.io/fingerprint": "f", "k": "v"}}},
			map[string]any{"metadata": map[string]any{"annotations": map[string]any{"k": "v"}}}, nil},
		{"value", map[string]any{"data": map[string]any{"a": "2"}}, map[string]any{"data": map[string]any{"a": "1"}}, []string{`data.a: desired "2", live "1"`}},
		{"absent", map[string]any{"data": map[string]any{"a": "2"}}, map[string]any{}, []string{`data: desired {"a":"2"}, live absent`}},
		{"list length", map[string]any{"l": []any{"a", "b"}}, map[string]any{"l": []any{"a"}}, []string{`l: desired ["a","b"], live ["a"]`}},
		{"list element", map[string]any{"l": []any{"a", "b"}}, map[string]any{"l": []any{"a", "c"}}, []string{`l[1]: desired "b", live "c"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := objectDiff(tt.desired, tt.live); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestObjectDiffIsBounded(t *testing.T) {
	desired, live := map[string]any{}, map[string]any{}
	for i := range 25 {
		k := string(rune('a' + i))
		desired[k], live[k] = "x", "y"
	}
	got := objectDiff(desired, live)
	if len(got) != maxDiffs || !strings.Contains(got[maxDiffs-1], "(16 more)") {
		t.Errorf("%d differences, last %q; want %d, the last saying 16 more", len(got), got[len(got)-1], maxDiffs)
	}
}
