package bundles

import (
	"bytes"
	"reflect"
)

// adoptedIgnored are the annotations a desired object carries that an
// object another writer created cannot have: the adapter's own
// bookkeeping. Contains ignores them.
var adoptedIgnored = map[string]bool{FingerprintAnnotation: true, ReplacedAnnotation: true}

// Contains reports whether the live object already holds every field of
// desired with the same value: an object written by someone else
// (hyperfleet-adapter, a person) that this adapter would write unchanged.
//
// It is the kubernetes transport's adoption test. The API server adds
// fields of its own (metadata.uid, resourceVersion, managedFields, status,
// defaults such as a Job's restartPolicy), so live may hold more than
// desired; every mapping in desired must be matched key by key in live,
// every list element by element with the same length (a list is replaced
// whole by an apply), and every scalar by its canonical JSON (so 1 and 1.0
// are the same number, as in a fingerprint). desired's FingerprintAnnotation
// and ReplacedAnnotation are ignored; desired's status is ignored, as the
// transport never writes it. A value Canonical refuses makes Contains
// false: the object is then written, never adopted on a doubt.
func Contains(live, desired map[string]any) bool {
	for k, dv := range desired {
		if _, skip := NotContained[k]; skip {
			continue
		}
		lv, ok := live[k]
		if !ok {
			return false
		}
		if k == "metadata" {
			if !metadataContains(lv, dv) {
				return false
			}
			continue
		}
		if !valueContains(lv, dv) {
			return false
		}
	}
	return true
}

// metadataContains is Contains for metadata, where desired's own
// annotations are ignored and an empty labels or annotations map matches
// an absent one.
func metadataContains(live, desired any) bool {
	lm, lok := asMap(live)
	dm, dok := asMap(desired)
	if !lok || !dok {
		return false
	}
	for k, dv := range dm {
		lv := lm[k]
		switch k {
		case "annotations", "labels":
			if !stringMapContains(lv, dv, k == "annotations") {
				return false
			}
		default:
			if _, ok := lm[k]; !ok || !valueContains(lv, dv) {
				return false
			}
		}
	}
	return true
}

// stringMapContains compares labels or annotations: every desired key
// (but the adapter's own annotations) is in live with the same value.
func stringMapContains(live, desired any, annotations bool) bool {
	dm, ok := asMap(desired)
	if !ok {
		return desired == nil
	}
	lm, _ := asMap(live)
	for k, dv := range dm {
		if annotations && adoptedIgnored[k] {
			continue
		}
		lv, ok := lm[k]
		if !ok || !valueContains(lv, dv) {
			return false
		}
	}
	return true
}

func valueContains(live, desired any) bool {
	if dm, ok := asMap(desired); ok {
		lm, ok := asMap(live)
		if !ok {
			return false
		}
		for k, dv := range dm {
			lv, ok := lm[k]
			if !ok || !valueContains(lv, dv) {
				return false
			}
		}
		return true
	}
	if dl, ok := asList(desired); ok {
		ll, ok := asList(live)
		if !ok || len(ll) != len(dl) {
			return false
		}
		for i := range dl {
			if !valueContains(ll[i], dl[i]) {
				return false
			}
		}
		return true
	}
	return scalarEqual(live, desired)
}

// scalarEqual compares two scalars by their canonical JSON.
func scalarEqual(a, b any) bool {
	if _, isMap := asMap(a); isMap {
		return false
	}
	if _, isList := asList(a); isList {
		return false
	}
	ca, err := Canonical(a)
	if err != nil {
		return false
	}
	cb, err := Canonical(b)
	return err == nil && bytes.Equal(ca, cb)
}

// asMap returns a mapping with string keys as map[string]any.
func asMap(v any) (map[string]any, bool) {
	switch m := v.(type) {
	case map[string]any:
		return m, true
	case map[string]string:
		out := make(map[string]any, len(m))
		for k, s := range m {
			out[k] = s
		}
		return out, true
	}
	return nil, false
}

// asList returns a list as []any.
func asList(v any) ([]any, bool) {
	switch l := v.(type) {
	case []any:
		return l, true
	case []string:
		out := make([]any, len(l))
		for i, s := range l {
			out[i] = s
		}
		return out, true
	case nil:
		return nil, false
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Slice {
		return nil, false
	}
	out := make([]any, rv.Len())
	for i := range out {
		out[i] = rv.Index(i).Interface()
	}
	return out, true
}

// NotContained lists each field of a Kubernetes object that Contains does
// not compare, by JSON path, with the reason. Every other field the desired
// object sets must be in the live object with the same value; a test walks
// an object's fields (TypeMeta, ObjectMeta, content) by reflection and
// fails on one that is neither.
// (The adapter's own annotations, adoptedIgnored, are left out of
// metadata.annotations: another writer cannot have them.)
var NotContained = map[string]string{
	"status": "the transport never writes status: the API server and the object's controllers own it",
}
