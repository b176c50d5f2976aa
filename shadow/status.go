package shadow

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/bundle-adapter/bundle-adapter/internal/secret"
)

// The status comparison covers the whole status body this adapter would
// report: every condition (matched by type) with every one of its fields,
// observed_generation, every data field (both ways: a data field only the
// live status holds differs too), and any other member the body has.
// Only the fields below are left out, listed once here and in
// docs/migration.md: they cannot agree between two reports of the same
// answer. Members only the API's stored status holds at the top level
// (its id, href, kind) are not part of what an adapter reports.
var statusNotCompared = map[string]string{
	"observed_time":        "the time of the report: every report has its own",
	"last_report_time":     "set by the API when a report arrives",
	"created_time":         "set by the API when the status is first stored",
	"updated_time":         "set by the API on each change",
	"last_transition_time": "when a condition last changed: the live adapter's history, not this event's answer",
	"last_updated_time":    "set by the API on each report",
}

// Field classes of a disagreement (the field label of
// bundle_adapter_shadow_decisions_total), most significant first: a
// decision with several is counted with the first.
const (
	FieldCondition          = "condition" // a condition's type, status or reason; a condition only one side holds
	FieldObservedGeneration = "observed_generation"
	FieldMessage            = "message" // a condition's message
	FieldData               = "data"    // a data field
	FieldOther              = "other"   // any other member of the status body
	FieldResource           = "resource"
)

var fieldRank = map[string]int{FieldResource: 0, FieldCondition: 1, FieldObservedGeneration: 2, FieldMessage: 3, FieldData: 4, FieldOther: 5}

// statusDifference is one differing field of the status.
type statusDifference struct{ class, text string }

// statusDiff names the fields of the status body want that live does not
// hold with the same value (see statusNotCompared), sorted, bounded by
// maxDiffs, and the most significant field class ("" when they agree).
func statusDiff(want, live map[string]any) ([]string, string) {
	var diffs []statusDifference
	for k, w := range want {
		if _, skip := statusNotCompared[k]; skip {
			continue
		}
		switch k {
		case "conditions":
			diffs = append(diffs, conditionsDiff(w, live[k])...)
		case "data":
			diffs = append(diffs, bothWays(FieldData, "data", w, live[k])...)
		case "observed_generation":
			diffs = append(diffs, oneWay(FieldObservedGeneration, k, w, live[k], true)...)
		default:
			diffs = append(diffs, oneWay(FieldOther, k, w, live[k], true)...)
		}
	}
	if _, ok := want["data"]; !ok {
		diffs = append(diffs, bothWays(FieldData, "data", nil, live["data"])...)
	}
	if _, ok := want["conditions"]; !ok {
		diffs = append(diffs, conditionsDiff(nil, live["conditions"])...)
	}
	return boundDiffs(diffs)
}

func boundDiffs(diffs []statusDifference) ([]string, string) {
	if len(diffs) == 0 {
		return nil, ""
	}
	class := diffs[0].class
	out := make([]string, len(diffs))
	for i, d := range diffs {
		out[i] = d.text
		if fieldRank[d.class] < fieldRank[class] {
			class = d.class
		}
	}
	sort.Strings(out)
	if len(out) > maxDiffs {
		n := len(out) - maxDiffs + 1
		out = append(out[:maxDiffs-1], fmt.Sprintf("(%d more)", n))
	}
	return out, class
}

// conditionsDiff compares conditions matched by type, every field of each
// (a message's class is FieldMessage); a condition only one side holds
// differs.
func conditionsDiff(want, live any) []statusDifference {
	w, wbad := conditionsIndexed(want, false)
	l, lbad := conditionsIndexed(live, true)
	out := append(wbad, lbad...)
	for typ, wc := range w {
		path := cutPath("conditions[" + typ + "]")
		lc, ok := l[typ]
		if !ok {
			out = append(out, statusDifference{FieldCondition, describeValue(path, wc, nil, false)})
			continue
		}
		keys := map[string]bool{}
		for k := range wc {
			keys[k] = true
		}
		for k := range lc {
			keys[k] = true
		}
		for k := range keys {
			if _, skip := statusNotCompared[k]; skip {
				continue
			}
			class := FieldCondition
			if k == "message" {
				class = FieldMessage
			}
			out = append(out, oneWay(class, joinPath(path, k), wc[k], lc[k], false)...)
		}
	}
	for typ, lc := range l {
		if _, ok := w[typ]; !ok {
			out = append(out, statusDifference{FieldCondition, describeValue(cutPath("conditions["+typ+"]"), nil, lc, true)})
		}
	}
	return out
}

// conditionsIndexed indexes a conditions list by type. An entry that is
// not an object, and a type held more than once, cannot be matched with
// the other side's: each is returned as a difference of its own (class
// FieldCondition), so a live status cannot agree by holding, beside the
// right conditions, junk or a second condition of the same type.
// liveSide names which side's list it is ("live" or "desired").
func conditionsIndexed(v any, liveSide bool) (map[string]map[string]any, []statusDifference) {
	out := map[string]map[string]any{}
	var bad []statusDifference
	side := "desired"
	if liveSide {
		side = "live"
	}
	list, _ := v.([]any)
	for i, c := range list {
		m, ok := c.(map[string]any)
		if !ok {
			bad = append(bad, statusDifference{FieldCondition, fmt.Sprintf("%s: %s holds a condition that is not an object: %s",
				cutPath(fmt.Sprintf("conditions[#%d]", i)), side, redacted("", c))})
			continue
		}
		typ, _ := m["type"].(string)
		if typ == "" {
			typ = fmt.Sprintf("#%d", i)
		}
		if _, dup := out[typ]; dup {
			bad = append(bad, statusDifference{FieldCondition, fmt.Sprintf("%s: %s holds this type more than once", cutPath("conditions["+typ+"]"), side)})
			continue
		}
		out[typ] = m
	}
	return out, bad
}

// conditionsByType is conditionsIndexed's index alone.
func conditionsByType(v any) map[string]map[string]any {
	m, _ := conditionsIndexed(v, true)
	return m
}

// oneWay compares want with live at path: the same JSON value, or one
// difference. wantSide says an absent live value is "live absent".
func oneWay(class, path string, want, live any, _ bool) []statusDifference {
	if scalarEqual(want, live) {
		return nil
	}
	return []statusDifference{{class, describeValue(path, want, live, false)}}
}

// bothWays compares two objects member by member, members only one side
// holds included; anything else as one value.
func bothWays(class, path string, want, live any) []statusDifference {
	wm, wok := want.(map[string]any)
	lm, lok := live.(map[string]any)
	if want == nil && live == nil {
		return nil
	}
	if (!wok && want != nil) || (!lok && live != nil) {
		return oneWay(class, path, want, live, true)
	}
	var out []statusDifference
	for k, w := range wm {
		if _, skip := statusNotCompared[k]; skip {
			continue
		}
		if _, isMap := w.(map[string]any); isMap {
			out = append(out, bothWays(class, joinPath(path, k), w, lm[k])...)
			continue
		}
		l, has := lm[k]
		if !has {
			out = append(out, statusDifference{class, describeValue(joinPath(path, k), w, nil, false)})
			continue
		}
		out = append(out, oneWay(class, joinPath(path, k), w, l, true)...)
	}
	for k, l := range lm {
		if _, has := wm[k]; !has {
			if _, skip := statusNotCompared[k]; !skip {
				out = append(out, statusDifference{class, describeValue(joinPath(path, k), nil, l, true)})
			}
		}
	}
	return out
}

// describeValue is "path: desired X, live Y"; a side that is absent says
// so (wantAbsent for the desired side), and a value whose path names a
// credential is REDACTED (a string value is passed through
// secret.RedactURL otherwise). Each value is cut at 120 bytes.
func describeValue(path string, want, live any, wantAbsent bool) string {
	w, l := redacted(path, want), redacted(path, live)
	switch {
	case wantAbsent:
		w = "absent"
	case live == nil:
		l = "absent"
	}
	return fmt.Sprintf("%s: desired %s, live %s", cutPath(path), w, l)
}

// maxDiffPath bounds the path a difference names: a live status with
// deep nesting or a key of a megabyte cannot make the log line long.
const maxDiffPath = 200

// cutPath is path cut at maxDiffPath bytes (on a rune boundary), marked
// with "…" when cut.
func cutPath(path string) string {
	if len(path) <= maxDiffPath {
		return path
	}
	n := maxDiffPath
	for n > 0 && !utf8.RuneStart(path[n]) {
		n--
	}
	return path[:n] + "…"
}

// joinPath is path.key, cut (cutPath); a path already cut is not grown,
// so nesting thousands deep builds no long strings.
func joinPath(path, key string) string {
	if strings.HasSuffix(path, "…") {
		return path
	}
	return cutPath(path + "." + key)
}

// credentialWords are the path words whose values are never logged.
var credentialWords = []string{"token", "password", "passwd", "secret", "key", "auth", "credential", "cert"}

func redacted(path string, v any) string {
	lower := strings.ToLower(path)
	for _, w := range credentialWords {
		if strings.Contains(lower, w) && v != nil {
			return secret.Redacted
		}
	}
	if s, ok := v.(string); ok {
		v = redactText(s)
	}
	return compact(v)
}

// decodeStatus decodes a status body as a generic object, numbers kept
// exact (decodeJSON).
func decodeStatus(b []byte) (map[string]any, error) {
	var m map[string]any
	if err := decodeJSON(b, &m); err != nil {
		return nil, err
	}
	return m, nil
}

// decodeJSON is json.Unmarshal with numbers decoded as json.Number, so
// that two generations past float64's integers (2^53+1 and 2^53) do not
// compare equal (scalarEqual compares numbers by exact value).
func decodeJSON(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("invalid character after top-level value")
	}
	return nil
}
