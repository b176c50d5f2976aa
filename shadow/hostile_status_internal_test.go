package shadow

import (
	"encoding/json"
	"strings"
	"testing"
)

// hostileWant is the status body this adapter would report in the cases
// of TestHostileLiveStatus.
const hostileWant = `{"adapter":"a","observed_generation":1,
 "conditions":[{"type":"Applied","status":"True","reason":"Applied","message":"ok"},
               {"type":"Health","status":"True","reason":"Healthy","message":""}],
 "data":{"x":1,"nested":{"y":"z"}}}`

// maxDiffText bounds one difference as logged: a path and two values cut
// at 120 bytes each, the path at maxDiffPath.
const maxDiffText = 2*120 + maxDiffPath + 64

// Issue 43's own round on the whole-status shadow: hostile answers for the
// API's last status. Each must disagree (with its field class) or agree
// as stated, and every logged difference is bounded and holds no secret.
func TestHostileLiveStatus(t *testing.T) {
	applied := func(status, msg string) string {
		return `{"type":"Applied","status":"` + status + `","reason":"Applied","message":"` + msg + `"}`
	}
	health := `{"type":"Health","status":"True","reason":"Healthy","message":""}`
	conds := func(cs ...string) string { return `[` + strings.Join(cs, ",") + `]` }
	with := func(conditions, og, data string) string {
		return `{"adapter":"a","observed_generation":` + og + `,"conditions":` + conditions + `,"data":` + data + `}`
	}
	okData := `{"x":1,"nested":{"y":"z"}}`
	okConds := conds(applied("True", "ok"), health)
	deep := okData
	for range 3000 {
		deep = `{"nested":` + deep + `}`
	}
	deepWant := `{"x":1,"nested":{"y":"z"}}`
	for range 3000 {
		deepWant = `{"nested":` + deepWant + `}`
	}
	huge := strings.Repeat("x", 1<<20)
	tests := []struct {
		name, want, live string
		field            string // "" agrees
		secret           string // must not be logged
	}{
		{"the same answer", hostileWant, with(okConds, "1", okData), "", ""},
		{"conditions an object", hostileWant, with(`{"Applied":`+applied("True", "ok")+`}`, "1", okData), FieldCondition, ""},
		{"conditions a string", hostileWant, with(`"Applied"`, "1", okData), FieldCondition, ""},
		{"conditions null", hostileWant, with(`null`, "1", okData), FieldCondition, ""},
		{"conditions empty", hostileWant, with(`[]`, "1", okData), FieldCondition, ""},
		{"a condition that is not an object beside the right ones", hostileWant, with(conds(`"junk"`, applied("True", "ok"), health), "1", okData), FieldCondition, ""},
		{"a null condition beside the right ones", hostileWant, with(conds(`null`, applied("True", "ok"), health), "1", okData), FieldCondition, ""},
		{"duplicate type, the disagreeing one first", hostileWant, with(conds(applied("False", "ok"), applied("True", "ok"), health), "1", okData), FieldCondition, ""},
		{"duplicate type, the disagreeing one last", hostileWant, with(conds(applied("True", "ok"), applied("False", "ok"), health), "1", okData), FieldCondition, ""},
		{"duplicate type, both the same", hostileWant, with(conds(applied("True", "ok"), applied("True", "ok"), health), "1", okData), FieldCondition, ""},
		{"duplicate type in this adapter's own body", with(conds(applied("True", "ok"), applied("False", "ok"), health), "1", okData), with(okConds, "1", okData), FieldCondition, ""},
		{"a condition without a type", hostileWant, with(conds(`{"status":"True","reason":"Applied","message":"ok"}`, health), "1", okData), FieldCondition, ""},
		{"a condition type that is a number", hostileWant, with(conds(`{"type":1,"status":"True","reason":"Applied","message":"ok"}`, health), "1", okData), FieldCondition, ""},
		{"observed_generation a string", hostileWant, with(okConds, `"1"`, okData), FieldObservedGeneration, ""},
		{"observed_generation 1.0", hostileWant, with(okConds, `1.0`, okData), "", ""},
		{"observed_generation 1e0", hostileWant, with(okConds, `1e0`, okData), "", ""},
		{"observed_generation negative", hostileWant, with(okConds, `-1`, okData), FieldObservedGeneration, ""},
		{"observed_generation null", hostileWant, with(okConds, `null`, okData), FieldObservedGeneration, ""},
		{"observed_generation huge", hostileWant, with(okConds, `1e308`, okData), FieldObservedGeneration, ""},
		{"observed_generation past float64's integers", with(okConds, "9007199254740993", okData), with(okConds, "9007199254740992", okData), FieldObservedGeneration, ""},
		{"observed_generation an object", hostileWant, with(okConds, `{"value":1}`, okData), FieldObservedGeneration, ""},
		{"data not an object", hostileWant, with(okConds, "1", `"x"`), FieldData, ""},
		{"data nested 3000 deep, differing at the bottom", with(okConds, "1", deepWant), with(okConds, "1", strings.Replace(deep, `"z"`, `"w"`, 1)), FieldData, ""},
		{"data holding a 1 MiB string", hostileWant, with(okConds, "1", `{"x":1,"nested":{"y":"`+huge+`"}}`), FieldData, ""},
		{"data with a 1 MiB key", hostileWant, with(okConds, "1", `{"x":1,"nested":{"y":"z"},"`+huge+`":1}`), FieldData, ""},
		{"a message with a password", hostileWant, with(conds(applied("False", "login failed: password=hunter2 for admin"), health), "1", okData), FieldCondition, "hunter2"},
		{"a message with a bearer token", hostileWant, with(conds(applied("True", "GET /x: Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.e30.sig"), health), "1", okData), FieldMessage, "eyJhbGciOiJIUzI1NiJ9"},
		{"a message with a JSON token", hostileWant, with(conds(applied("True", `answer {\"token\": \"tk-123456\"}`), health), "1", okData), FieldMessage, "tk-123456"},
		{"a message with an api key", hostileWant, with(conds(applied("True", "api_key: AKIAXYZ123 rejected"), health), "1", okData), FieldMessage, "AKIAXYZ123"},
		{"a message with a URL's password", hostileWant, with(conds(applied("True", "dial https://u:pw-998877@host/x"), health), "1", okData), FieldMessage, "pw-998877"},
		{"a data field named like a secret", hostileWant, with(okConds, "1", `{"x":1,"nested":{"y":"z"},"clientSecret":"cs-4455"}`), FieldData, "cs-4455"},
		{"times only", hostileWant, `{"adapter":"a","observed_generation":1,"observed_time":"2020-01-01T00:00:00Z","conditions":` + conds(applied("True", "ok")[:len(applied("True", "ok"))-1]+`,"last_transition_time":"x"}`, health) + `,"data":` + okData + `}`, "", ""},
		{"what only the API stores (id, href)", hostileWant, `{"id":"1","href":"/x","adapter":"a","observed_generation":1,"conditions":` + okConds + `,"data":` + okData + `}`, "", ""},
		{"a thousand data fields differ", hostileWant, with(okConds, "1", thousandFields()), FieldData, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, err := decodeStatus([]byte(tt.want))
			if err != nil {
				t.Fatal(err)
			}
			live, ok, err := liveStatus([]byte(`{"items":[`+tt.live+`]}`), "a")
			if err != nil || !ok {
				t.Fatalf("live status: %v %v", ok, err)
			}
			diffs, field := statusDiff(want, live)
			if field != tt.field {
				t.Errorf("field %q, want %q; differences %.2000q", field, tt.field, diffs)
			}
			if (len(diffs) == 0) != (tt.field == "") {
				t.Errorf("differences %.2000q with field %q", diffs, field)
			}
			if len(diffs) > maxDiffs {
				t.Errorf("%d differences, over %d", len(diffs), maxDiffs)
			}
			for _, d := range diffs {
				if len(d) > maxDiffText {
					t.Errorf("a difference of %d bytes, over %d: %.300q", len(d), maxDiffText, d)
				}
				if tt.secret != "" && strings.Contains(d, tt.secret) {
					t.Errorf("a secret in the difference %q", d)
				}
			}
		})
	}
}

func thousandFields() string {
	m := map[string]any{"x": 1, "nested": map[string]any{"y": "z"}}
	for i := range 1000 {
		m["f"+strings.Repeat("0", i%7)+string(rune('a'+i%26))+strings.Repeat("z", i/26)] = i
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// Hostile bodies for GET …/statuses: never an error of the event, always
// a status disagreement of its own.
func TestHostileStatusesList(t *testing.T) {
	for _, body := range []string{`{"items":["x"]}`, `{"items":{}}`, `"x"`, `[1,2]`, `{"items":[{"adapter":1}]}`, `nul`, ``} {
		t.Run(body, func(t *testing.T) {
			_, ok, err := liveStatus([]byte(body), "a")
			if ok {
				t.Errorf("liveStatus(%s) found a status", body)
			}
			_ = err // either an error (a decision of field other) or not found (field condition)
		})
	}
}
