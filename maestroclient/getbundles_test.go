package maestroclient

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// GetBundles asks Maestro's list for exactly the keys' bundle ids in one
// request and places each item at its key: present, deleting (with its
// deletionTimestamp) or absent (nil); a repeated key gets its bundle twice.
func TestGetBundlesOneListRequest(t *testing.T) {
	var requests []string
	var answer string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests = append(requests, r.URL.Path+"?"+r.URL.RawQuery)
		w.Write([]byte(answer))
	}))
	defer srv.Close()
	pool, err := NewPool(t.Context(), Options{GRPC: TLSOptions{Insecure: true}, HTTP: TLSOptions{Insecure: true},
		HTTPURL: srv.URL, SourceID: "src", Retry: RetryOptions{Attempts: 1}})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	c := pool.clients[0]
	keys := []adapter.BundleKey{{Consumer: "c1", Name: "live"}, {Consumer: "c2", Name: "gone"}, {Consumer: "c1", Name: "deleting"}, {Consumer: "c1", Name: "live"}}
	item := func(name, extra string) string {
		return fmt.Sprintf(`{"id":%q,"version":2,"metadata":{"name":%q,"namespace":"c1"%s},"manifests":[]}`, c.bundleID("c1", name), name, extra)
	}
	answer = `{"kind":"ResourceBundleList","page":1,"size":2,"total":1,"items":[` +
		item("deleting", `,"deletionTimestamp":"2026-11-30T10:05:00Z"`) + "," + item("live", "") + `]}`

	works, err := pool.GetBundles(t.Context(), keys)
	if err != nil {
		t.Fatal(err)
	}
	if len(requests) != 1 {
		t.Fatalf("%d requests, want one: %v", len(requests), requests)
	}
	for _, k := range keys {
		if id := c.bundleID(k.Consumer, k.Name); !strings.Contains(requests[0], id) {
			t.Errorf("request %s does not ask for %s (%s)", requests[0], k.Name, id)
		}
	}
	if !strings.HasPrefix(requests[0], "/api/maestro/v1/resource-bundles?") || !strings.Contains(requests[0], "size=4") {
		t.Errorf("request %s: want the list, sized for every key", requests[0])
	}
	got := make([]string, len(works))
	for i, w := range works {
		switch {
		case w == nil:
			got[i] = "absent"
		case w.DeletionTimestamp != nil:
			got[i] = w.Name + " deleting"
		default:
			got[i] = w.Name + " generation " + fmt.Sprint(w.Generation)
		}
	}
	if want := "[live generation 2 absent deleting deleting live generation 2]"; fmt.Sprint(got) != want {
		t.Errorf("got %v, want %s", got, want)
	}
}

// Failures are classified as Get's, and a list naming a bundle that was not
// asked for is refused.
func TestGetBundlesFailures(t *testing.T) {
	for _, tt := range []struct {
		name   string
		status int
		body   string
		want   error
	}{
		{"server error", 503, `{"reason":"down"}`, adapter.ErrUnavailable},
		{"bad search", 400, `{"reason":"Failed to parse search query"}`, adapter.ErrInvalid},
		{"unexpected bundle", 200, `{"items":[{"id":"not-asked","version":1}]}`, adapter.ErrInvalid},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(tt.status)
				w.Write([]byte(tt.body))
			}))
			defer srv.Close()
			pool, err := NewPool(t.Context(), Options{GRPC: TLSOptions{Insecure: true}, HTTP: TLSOptions{Insecure: true},
				HTTPURL: srv.URL, Retry: RetryOptions{Attempts: 1}})
			if err != nil {
				t.Fatal(err)
			}
			defer pool.Close()
			_, err = pool.GetBundles(t.Context(), []adapter.BundleKey{{Consumer: "c", Name: "a"}, {Consumer: "c", Name: "b"}})
			if !errors.Is(err, tt.want) {
				t.Errorf("got %v, want %v", err, tt.want)
			}
		})
	}
}
