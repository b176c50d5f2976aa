package kubeclient

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// step is one answer of the scripted API server, in request order.
type step struct {
	method, contentType string // expected request
	code                int
	reason              metav1.StatusReason
	body                map[string]any // object answered when code is 200
}

type recorded struct {
	method, contentType string
	body                map[string]any
}

// scripted answers requests for cm1 from script, in order, and records them.
func scripted(t *testing.T, script []step) (*fakeServer, func() []recorded) {
	var mu sync.Mutex
	var seen []recorded
	f := newFakeServer(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		raw, _ := io.ReadAll(r.Body)
		rec := recorded{method: r.Method, contentType: r.Header.Get("Content-Type")}
		_ = json.Unmarshal(raw, &rec.body)
		seen = append(seen, rec)
		i := len(seen) - 1
		if i >= len(script) {
			t.Errorf("request %d %s %s beyond the script", i, r.Method, r.URL.Path)
			writeStatus(w, http.StatusInternalServerError, metav1.StatusReasonInternalError, "beyond the script")
			return
		}
		s := script[i]
		if s.method != r.Method || s.contentType != "" && s.contentType != rec.contentType {
			t.Errorf("request %d: %s %s, want %s %s", i, r.Method, rec.contentType, s.method, s.contentType)
		}
		if s.code != http.StatusOK {
			writeStatus(w, s.code, s.reason, "scripted "+string(s.reason))
			return
		}
		writeJSON(w, http.StatusOK, s.body)
	})
	return f, func() []recorded { mu.Lock(); defer mu.Unlock(); return append([]recorded(nil), seen...) }
}

func desiredCM() *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "cm1", "namespace": "ns1", "annotations": map[string]any{"bundle-adapter.io/fingerprint": "fp2"}},
		"data":     map[string]any{"a": "2"},
	}}
}

const applyType = "application/apply-patch+yaml"

func TestApply(t *testing.T) {
	live := configMapJSON("ns1", "cm1", nil)
	deleting := configMapJSON("ns1", "cm1", map[string]any{"deletionTimestamp": "2026-01-01T00:00:00Z", "finalizers": []any{"x"}})
	replaced := configMapJSON("ns1", "cm1", map[string]any{"uid": "uid-new", "resourceVersion": "12"})
	createdByPost := configMapJSON("ns1", "cm1", map[string]any{"managedFields": []any{map[string]any{
		"manager": DefaultFieldManager, "operation": "Update", "apiVersion": "v1", "fieldsType": "FieldsV1",
		"fieldsV1": map[string]any{"f:data": map[string]any{".": map[string]any{}, "f:a": map[string]any{}, "f:b": map[string]any{}}},
	}}})
	upgraded := configMapJSON("ns1", "cm1", map[string]any{"resourceVersion": "8"})

	cases := []struct {
		name    string
		script  []step
		want    error // nil: success
		checkRV []string
	}{
		{"applied onto the live object", []step{
			{method: "GET", code: 200, body: live},
			{method: "PATCH", contentType: applyType, code: 200, body: live},
		}, nil, []string{"7"}},
		{"missing: no write", []step{
			{method: "GET", code: 404, reason: metav1.StatusReasonNotFound},
		}, adapter.ErrNotFound, nil},
		{"deleting: no write", []step{
			{method: "GET", code: 200, body: deleting},
		}, adapter.ErrUnderDeletion, nil},
		{"deleted between read and apply", []step{
			{method: "GET", code: 200, body: live},
			{method: "PATCH", contentType: applyType, code: 409, reason: metav1.StatusReasonConflict},
			{method: "GET", code: 404, reason: metav1.StatusReasonNotFound},
		}, adapter.ErrNotFound, []string{"7"}},
		{"deletion started between read and apply", []step{
			{method: "GET", code: 200, body: live},
			{method: "PATCH", contentType: applyType, code: 409, reason: metav1.StatusReasonConflict},
			{method: "GET", code: 200, body: deleting},
		}, adapter.ErrUnderDeletion, []string{"7"}},
		{"replaced between read and apply: applied onto the new one", []step{
			{method: "GET", code: 200, body: live},
			{method: "PATCH", contentType: applyType, code: 409, reason: metav1.StatusReasonConflict},
			{method: "GET", code: 200, body: replaced},
			{method: "PATCH", contentType: applyType, code: 200, body: replaced},
		}, nil, []string{"7", "12"}},
		{"changing on every attempt", []step{
			{method: "GET", code: 200, body: live},
			{method: "PATCH", contentType: applyType, code: 409, reason: metav1.StatusReasonConflict},
			{method: "GET", code: 200, body: live},
			{method: "PATCH", contentType: applyType, code: 409, reason: metav1.StatusReasonConflict},
			{method: "GET", code: 200, body: live},
			{method: "PATCH", contentType: applyType, code: 409, reason: metav1.StatusReasonConflict},
		}, adapter.ErrUnavailable, []string{"7", "7", "7"}},
		{"first apply after create moves ownership first", []step{
			{method: "GET", code: 200, body: createdByPost},
			{method: "PATCH", contentType: "application/json-patch+json", code: 200, body: upgraded},
			{method: "PATCH", contentType: applyType, code: 200, body: upgraded},
		}, nil, []string{"8"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, seen := scripted(t, c.script)
			out, err := f.client(t, Options{}).Apply(context.Background(), desiredCM())
			if c.want == nil && err != nil {
				t.Fatalf("Apply: %v", err)
			}
			if c.want != nil && !errors.Is(err, c.want) {
				t.Fatalf("Apply: %v, want %q", err, c.want)
			}
			if c.want == nil && out == nil {
				t.Fatal("Apply returned no object")
			}
			reqs := seen()
			if len(reqs) != len(c.script) {
				t.Errorf("%d requests, want %d", len(reqs), len(c.script))
			}
			var rvs []string
			for _, r := range reqs {
				if r.contentType != applyType {
					continue
				}
				u := unstructured.Unstructured{Object: r.body}
				if u.GetUID() == "" {
					t.Errorf("apply without a uid precondition: it could create the object")
				}
				if d, _, _ := unstructured.NestedStringMap(r.body, "data"); d["a"] != "2" {
					t.Errorf("apply body data %v, want a=2", d)
				}
				rvs = append(rvs, u.GetResourceVersion())
			}
			if !equalStrings(rvs, c.checkRV) {
				t.Errorf("apply resourceVersion preconditions %v, want %v", rvs, c.checkRV)
			}
		})
	}
}

func TestApplySendsFieldManagerAndForce(t *testing.T) {
	var query string
	f := newFakeServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPatch {
			query = r.URL.RawQuery
		}
		writeJSON(w, http.StatusOK, configMapJSON("ns1", "cm1", nil))
	})
	if _, err := f.client(t, Options{FieldManager: "team-a"}).Apply(context.Background(), desiredCM()); err != nil {
		t.Fatal(err)
	}
	q, _ := url.ParseQuery(query)
	if q.Get("fieldManager") != "team-a" || q.Get("force") != "true" {
		t.Errorf("apply query %q, want fieldManager=team-a and force=true", query)
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
