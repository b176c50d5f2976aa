package kubeclient

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// A name or namespace rendered from an event cannot change the request's
// path: client-go refuses anything that is not one path segment, no
// request reaches the objects of the API server, and the error is
// ErrInvalid (retrying cannot help) naming the value.
func TestHostileNamesNeverReachTheServer(t *testing.T) {
	var objectRequests atomic.Int64
	f := newFakeServer(t, func(w http.ResponseWriter, r *http.Request) {
		objectRequests.Add(1)
		writeStatus(w, http.StatusNotFound, "NotFound", "not found")
	})
	c := f.client(t, Options{})
	ctx := context.Background()
	cases := []struct{ name, namespace string }{
		{"../../secrets/x", "ns1"},
		{"a/b", "ns1"},
		{"..", "ns1"},
		{"x%2Fy", "ns1"},
		{"cm", "../kube-system"},
		{"cm", "a/b"},
	}
	for _, tc := range cases {
		ref := adapter.KubeRef{APIVersion: "v1", Kind: "ConfigMap", Namespace: tc.namespace, Name: tc.name}
		obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": tc.name, "namespace": tc.namespace}}}
		calls := map[string]func() error{
			"get":    func() error { _, err := c.Get(ctx, ref); return err },
			"delete": func() error { return c.Delete(ctx, ref, "") },
			"create": func() error { _, err := c.Create(ctx, obj); return err },
			"apply":  func() error { _, err := c.Apply(ctx, obj); return err },
		}
		for verb, call := range calls {
			err := call()
			if !errors.Is(err, adapter.ErrInvalid) {
				t.Errorf("%s %s/%s: %v, want ErrInvalid", verb, tc.namespace, tc.name, err)
			}
			if err != nil && !strings.Contains(err.Error(), tc.name) && !strings.Contains(err.Error(), tc.namespace) {
				t.Errorf("%s %s/%s: error does not name the value: %v", verb, tc.namespace, tc.name, err)
			}
		}
	}
	if n := objectRequests.Load(); n != 0 {
		t.Errorf("%d requests reached the API server's objects, want 0", n)
	}
}

// A label value rendered from an event cannot add terms to a List's
// selector: a key or value Kubernetes would not accept is ErrInvalid
// naming it, and no request reaches the API server's objects.
func TestHostileLabelsNeverReachTheServer(t *testing.T) {
	var objectRequests atomic.Int64
	f := newFakeServer(t, func(w http.ResponseWriter, r *http.Request) {
		objectRequests.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"apiVersion":"v1","kind":"ConfigMapList","metadata":{},"items":[]}`))
	})
	c := f.client(t, Options{})
	ref := adapter.KubeRef{APIVersion: "v1", Kind: "ConfigMap", Namespace: "ns1"}
	cases := []struct {
		labels map[string]string
		names  string
	}{
		{map[string]string{"cluster": "x,env!=prod"}, "x,env!=prod"},
		{map[string]string{"cluster": "x env"}, "x env"},
		{map[string]string{"cluster,env": "x"}, "cluster,env"},
		{map[string]string{"cluster": "ok", "team": "a=b"}, "a=b"},
	}
	for _, tc := range cases {
		objs, err := c.List(context.Background(), ref, tc.labels)
		if !errors.Is(err, adapter.ErrInvalid) {
			t.Errorf("List %q: %v, want ErrInvalid", tc.labels, err)
		}
		if err != nil && !strings.Contains(err.Error(), tc.names) {
			t.Errorf("List %q: error does not name %s: %v", tc.labels, tc.names, err)
		}
		if len(objs) != 0 {
			t.Errorf("List %q: %d objects, want none", tc.labels, len(objs))
		}
	}
	if n := objectRequests.Load(); n != 0 {
		t.Errorf("%d requests reached the API server's objects, want 0", n)
	}
	// The same client lists with valid labels: the handler is reached.
	if _, err := c.List(context.Background(), ref, map[string]string{"cluster": "x"}); err != nil {
		t.Fatalf("List with valid labels: %v", err)
	}
	if objectRequests.Load() != 1 {
		t.Errorf("%d requests for one valid List, want 1", objectRequests.Load())
	}
}
