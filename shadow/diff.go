package shadow

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"sort"
	"strings"

	workv1 "open-cluster-management.io/api/work/v1"
)

// maxDiffs bounds the fields one write names.
const maxDiffs = 10

// absent is the difference a create names: there is no live object.
const absent = "(absent)"

// ours is the prefix of this adapter's own annotations, which a diff
// ignores (the live writer never sets them).
const ours = "bundle-adapter.io/"

// workDiff names the fields of the desired bundle's spec and labels that
// the live one does not hold with the same value.
func workDiff(desired, live *workv1.ManifestWork) []string {
	want := map[string]any{"spec": toMap(desired.Spec), "metadata": map[string]any{"labels": toMap(desired.Labels)}}
	got := map[string]any{"spec": toMap(live.Spec), "metadata": map[string]any{"labels": toMap(live.Labels)}}
	return objectDiff(want, got)
}

// objectDiff names, in sorted order, the fields of desired that live does
// not hold with the same value, as "path: desired X, live Y" (at most
// maxDiffs, the last one saying how many were left out). What only live
// holds (what a server adds) is ignored, as are status and this adapter's
// own annotations; lists compare element by element and by length.
func objectDiff(desired, live map[string]any) []string {
	var out []string
	walk("", desired, live, &out)
	sort.Strings(out)
	if len(out) > maxDiffs {
		n := len(out) - maxDiffs + 1
		out = append(out[:maxDiffs-1], fmt.Sprintf("(%d more)", n))
	}
	return out
}

func walk(path string, want, got any, out *[]string) {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			*out = append(*out, describe(path, want, got))
			return
		}
		for k, v := range w {
			if skipped(path, k) {
				continue
			}
			walk(join(path, k), v, g[k], out)
		}
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			*out = append(*out, describe(path, want, got))
			return
		}
		for i := range w {
			walk(fmt.Sprintf("%s[%d]", path, i), w[i], g[i], out)
		}
	default:
		if !scalarEqual(want, got) {
			*out = append(*out, describe(path, want, got))
		}
	}
}

// skipped reports whether key under path is left out of a diff.
func skipped(path, key string) bool {
	return path == "" && key == "status" || path == "metadata.annotations" && strings.HasPrefix(key, ours)
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// scalarEqual compares two JSON scalars, numbers by exact value whatever
// their Go type (an int64 from a template, a float64 or a json.Number from
// a decoded body: 1, 1.0 and 1e0 are equal, 2^53 and 2^53+1 are not).
func scalarEqual(a, b any) bool {
	if x, ok := exactNumber(a); ok {
		y, ok := exactNumber(b)
		return ok && x.Cmp(y) == 0
	}
	return compact(a) == compact(b)
}

// exactNumber is v as an exact rational when v is a JSON number.
func exactNumber(v any) (*big.Rat, bool) {
	switch x := v.(type) {
	case json.Number:
		return new(big.Rat).SetString(string(x))
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return nil, false
		}
		return new(big.Rat).SetFloat64(x), true
	case float32:
		return exactNumber(float64(x))
	case int:
		return new(big.Rat).SetInt64(int64(x)), true
	case int64:
		return new(big.Rat).SetInt64(x), true
	case int32:
		return new(big.Rat).SetInt64(int64(x)), true
	case uint64:
		return new(big.Rat).SetFrac(new(big.Int).SetUint64(x), big.NewInt(1)), true
	}
	return nil, false
}

func describe(path string, want, got any) string {
	if got == nil {
		return fmt.Sprintf("%s: desired %s, live absent", path, compact(want))
	}
	return fmt.Sprintf("%s: desired %s, live %s", path, compact(want), compact(got))
}

// compact is v as JSON, cut at 120 bytes.
func compact(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(b) > 120 {
		return string(b[:120]) + "…"
	}
	return string(b)
}

// toMap is v through JSON as generic values (nil on failure).
func toMap(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var out any
	if json.Unmarshal(b, &out) != nil {
		return nil
	}
	return out
}
