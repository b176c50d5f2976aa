package adapter

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// objectMeta converts an unstructured metadata object into m exactly as
// runtime.DefaultUnstructuredConverter.FromUnstructured does: the same
// fields, the same error or none. The metadata a bundle carries (plain
// strings, an int64 generation, RFC 3339 or null timestamps, string maps
// and lists) is converted directly; anything else (another key, another
// type, an empty or null collection) is left to the converter.
func objectMeta(u map[string]any, m *metav1.ObjectMeta) error {
	var fast metav1.ObjectMeta
	if plainObjectMeta(u, &fast) {
		*m = fast
		return nil
	}
	return runtime.DefaultUnstructuredConverter.FromUnstructured(u, m)
}

// plainObjectMeta fills m from u when every member of u is one it
// converts as the converter would; false leaves the whole of u to the
// converter (m is then partly filled and must be dropped).
func plainObjectMeta(u map[string]any, m *metav1.ObjectMeta) bool {
	for k, v := range u {
		ok := true
		switch k {
		case "name":
			m.Name, ok = v.(string)
		case "generateName":
			m.GenerateName, ok = v.(string)
		case "namespace":
			m.Namespace, ok = v.(string)
		case "uid":
			var s string
			s, ok = v.(string)
			m.UID = types.UID(s)
		case "resourceVersion":
			m.ResourceVersion, ok = v.(string)
		case "generation":
			m.Generation, ok = v.(int64)
		case "creationTimestamp":
			m.CreationTimestamp, ok = metaTime(v)
		case "deletionTimestamp":
			var t metav1.Time
			if t, ok = metaTime(v); ok && v != nil {
				m.DeletionTimestamp = &t
			}
		case "labels":
			m.Labels, ok = stringMapOf(v)
		case "annotations":
			m.Annotations, ok = stringMapOf(v)
		case "finalizers":
			m.Finalizers, ok = stringListOf(v)
		default:
			ok = false
		}
		if !ok {
			return false
		}
	}
	return true
}

// metaTime is a timestamp as metav1.Time.UnmarshalJSON reads it: null is
// the zero time, a string is RFC 3339 in the local zone. false: anything
// else, or a string that does not parse (the converter's error).
func metaTime(v any) (metav1.Time, bool) {
	switch s := v.(type) {
	case nil:
		return metav1.Time{}, true
	case string:
		if !plainASCII(s) {
			return metav1.Time{}, false // left to the converter's JSON round trip
		}
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			return metav1.Time{}, false
		}
		return metav1.NewTime(t.Local()), true
	}
	return metav1.Time{}, false
}

// stringMapOf is a non-empty map of strings; false for anything else.
func stringMapOf(v any) (map[string]string, bool) {
	u, ok := v.(map[string]any)
	if !ok || len(u) == 0 {
		return nil, false
	}
	out := make(map[string]string, len(u))
	for k, x := range u {
		s, ok := x.(string)
		if !ok {
			return nil, false
		}
		out[k] = s
	}
	return out, true
}

// stringListOf is a non-empty list of strings; false for anything else.
func stringListOf(v any) ([]string, bool) {
	u, ok := v.([]any)
	if !ok || len(u) == 0 {
		return nil, false
	}
	out := make([]string, len(u))
	for i, x := range u {
		s, ok := x.(string)
		if !ok {
			return nil, false
		}
		out[i] = s
	}
	return out, true
}

// plainASCII: printable ASCII without quotes or backslashes, a string a
// JSON round trip gives back as it is.
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}
