package kubeclient

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// pagedServer answers List in pages of the size asked for, total objects in
// all, and records the label selectors and limits it saw.
func pagedServer(t *testing.T, total int, requests *atomic.Int64) *fakeServer {
	return newFakeServer(t, func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		q := r.URL.Query()
		limit, _ := strconv.Atoi(q.Get("limit"))
		if limit <= 0 || limit > 500 {
			t.Errorf("List asked for limit %q, want a bounded page", q.Get("limit"))
			limit = 500
		}
		start, _ := strconv.Atoi(q.Get("continue"))
		var items []any
		for i := start; i < min(start+limit, total); i++ {
			items = append(items, configMapJSON("ns1", "cm-"+strconv.Itoa(i), nil))
		}
		meta := map[string]any{"resourceVersion": "9"}
		if start+limit < total {
			meta["continue"] = strconv.Itoa(start + limit)
		}
		writeJSON(w, http.StatusOK, map[string]any{"apiVersion": "v1", "kind": "ConfigMapList", "metadata": meta, "items": items})
	})
}

func TestListPages(t *testing.T) {
	cases := []struct {
		name    string
		total   int
		max     int
		wantErr bool
	}{
		{"none", 0, 10, false},
		{"one page", 7, 10, false},
		{"exactly the cap", 10, 10, false},
		{"several pages", 250, 1000, false},
		{"one past the cap", 11, 10, true},
		{"a huge list", 1_000_000, 10, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var requests atomic.Int64
			f := pagedServer(t, c.total, &requests)
			objs, err := f.client(t, Options{MaxListItems: c.max}).List(context.Background(), cmRef, map[string]string{"app": "x"})
			if c.wantErr {
				if !errors.Is(err, adapter.ErrInvalid) || !strings.Contains(err.Error(), "more than "+strconv.Itoa(c.max)) {
					t.Fatalf("List of %d objects with cap %d: %v, want ErrInvalid naming the cap", c.total, c.max, err)
				}
				if n := requests.Load(); n > int64(c.max/listPage+2) {
					t.Errorf("List kept reading past the cap: %d requests", n)
				}
				return
			}
			if err != nil {
				t.Fatalf("List: %v", err)
			}
			if len(objs) != c.total {
				t.Errorf("List returned %d objects, want %d", len(objs), c.total)
			}
			for i, o := range objs {
				if o.GetKind() != "ConfigMap" || o.GetAPIVersion() != "v1" {
					t.Fatalf("item %d: apiVersion %q kind %q", i, o.GetAPIVersion(), o.GetKind())
				}
			}
		})
	}
}

func TestListSelectorAndNamespace(t *testing.T) {
	var gotPath, gotSelector string
	f := newFakeServer(t, func(w http.ResponseWriter, r *http.Request) {
		gotPath, gotSelector = r.URL.Path, r.URL.Query().Get("labelSelector")
		writeJSON(w, http.StatusOK, map[string]any{"apiVersion": "v1", "kind": "ConfigMapList", "metadata": map[string]any{}, "items": []any{}})
	})
	c := f.client(t, Options{})
	cases := []struct {
		namespace, wantPath string
	}{
		{"ns1", "/api/v1/namespaces/ns1/configmaps"},
		{"", "/api/v1/configmaps"},
	}
	for _, tc := range cases {
		ref := cmRef
		ref.Namespace = tc.namespace
		if _, err := c.List(context.Background(), ref, map[string]string{"b": "2", "a": "1"}); err != nil {
			t.Fatalf("List: %v", err)
		}
		if gotPath != tc.wantPath || gotSelector != "a=1,b=2" {
			t.Errorf("List in %q asked %s?labelSelector=%s, want %s?labelSelector=a=1,b=2", tc.namespace, gotPath, gotSelector, tc.wantPath)
		}
	}
}

func TestResponseBodyBounded(t *testing.T) {
	huge := strings.Repeat("x", 4096)
	f := newFakeServer(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, configMapJSON("ns1", "cm1", map[string]any{"annotations": map[string]any{"pad": huge}}))
	})
	_, err := f.client(t, Options{MaxResponseBytes: 2048}).Get(context.Background(), cmRef)
	if !errors.Is(err, adapter.ErrInvalid) || !strings.Contains(err.Error(), "too large") {
		t.Errorf("Get of a 4 KiB object with a 2 KiB bound: %v, want ErrInvalid saying too large", err)
	}
	if _, err := f.client(t, Options{MaxResponseBytes: 8192}).Get(context.Background(), cmRef); err != nil {
		t.Errorf("Get within the bound: %v", err)
	}
}
