package kubeclient

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
)

// fakeServer answers discovery like an API server serving ConfigMaps and
// Namespaces (and Widgets of example.com/v1 once widgets is set), and hands
// every other request to objects.
type fakeServer struct {
	srv       *httptest.Server
	discovery atomic.Int64 // requests of /api and /apis
	widgets   atomic.Bool

	mu      sync.Mutex
	objects http.HandlerFunc
}

func newFakeServer(t *testing.T, objects http.HandlerFunc) *fakeServer {
	t.Helper()
	f := &fakeServer{objects: objects}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeServer) client(t *testing.T, o Options) *Client {
	t.Helper()
	c, err := NewForConfig(&rest.Config{Host: f.srv.URL}, o)
	if err != nil {
		t.Fatalf("NewForConfig: %v", err)
	}
	return c
}

func (f *fakeServer) serve(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/api":
		f.discovery.Add(1)
		writeJSON(w, http.StatusOK, metav1.APIVersions{TypeMeta: metav1.TypeMeta{Kind: "APIVersions"}, Versions: []string{"v1"}})
		return
	case "/apis":
		f.discovery.Add(1)
		list := metav1.APIGroupList{TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"}}
		if f.widgets.Load() {
			gv := metav1.GroupVersionForDiscovery{GroupVersion: "example.com/v1", Version: "v1"}
			list.Groups = append(list.Groups, metav1.APIGroup{Name: "example.com", Versions: []metav1.GroupVersionForDiscovery{gv}, PreferredVersion: gv})
		}
		writeJSON(w, http.StatusOK, list)
		return
	case "/api/v1":
		writeJSON(w, http.StatusOK, metav1.APIResourceList{
			TypeMeta:     metav1.TypeMeta{Kind: "APIResourceList"},
			GroupVersion: "v1",
			APIResources: []metav1.APIResource{
				{Name: "configmaps", Namespaced: true, Kind: "ConfigMap", Verbs: verbs},
				{Name: "namespaces", Namespaced: false, Kind: "Namespace", Verbs: verbs},
			},
		})
		return
	case "/apis/example.com/v1":
		if f.widgets.Load() {
			writeJSON(w, http.StatusOK, metav1.APIResourceList{
				TypeMeta:     metav1.TypeMeta{Kind: "APIResourceList"},
				GroupVersion: "example.com/v1",
				APIResources: []metav1.APIResource{{Name: "widgets", Namespaced: true, Kind: "Widget", Verbs: verbs}},
			})
			return
		}
	}
	f.mu.Lock()
	h := f.objects
	f.mu.Unlock()
	if h == nil || strings.HasPrefix(r.URL.Path, "/apis/") && !strings.HasPrefix(r.URL.Path, "/apis/example.com/") {
		writeStatus(w, http.StatusNotFound, metav1.StatusReasonNotFound, "the server could not find the requested resource")
		return
	}
	h(w, r)
}

var verbs = metav1.Verbs{"get", "list", "create", "patch", "delete"}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

func writeStatus(w http.ResponseWriter, code int, reason metav1.StatusReason, msg string) {
	writeJSON(w, code, metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure, Code: int32(code), Reason: reason, Message: msg,
	})
}

func configMapJSON(ns, name string, extra map[string]any) map[string]any {
	meta := map[string]any{"name": name, "namespace": ns, "uid": "uid-" + name, "resourceVersion": "7",
		"creationTimestamp": time.Unix(0, 0).UTC().Format(time.RFC3339)}
	for k, v := range extra {
		meta[k] = v
	}
	return map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta}
}
