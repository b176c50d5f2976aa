package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// proxied sends method path through the named broken proxy to an upstream
// that answers code and body, and returns the proxy's answer.
func proxied(t *testing.T, name, method, path string, code int, body string) (int, string) {
	t.Helper()
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_, _ = io.WriteString(w, body)
	}))
	defer up.Close()
	h, err := brokenHandler(name, up.URL)
	if err != nil {
		t.Fatal(err)
	}
	px := httptest.NewServer(h)
	defer px.Close()
	req, _ := http.NewRequest(method, px.URL+path, strings.NewReader("{}"))
	resp, err := px.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(got)
}

func TestAckEarlyProxy(t *testing.T) {
	for _, tc := range []struct {
		name, method, path string
		code, want         int
	}{
		{"status PUT 503 acked", http.MethodPut, "/api/hyperfleet/v1/clusters/c1/statuses", 503, 200},
		{"status PUT 200 passes", http.MethodPut, "/api/hyperfleet/v1/clusters/c1/statuses", 200, 200},
		{"status PUT 500 passes", http.MethodPut, "/api/hyperfleet/v1/clusters/c1/statuses", 500, 500},
		{"cluster GET 503 passes", http.MethodGet, "/api/hyperfleet/v1/clusters/c1", 503, 503},
		{"other PUT 503 passes", http.MethodPut, "/api/hyperfleet/v1/clusters/c1", 503, 503},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got, body := proxied(t, brokenAckEarly, tc.method, tc.path, tc.code, `{"reason":"x"}`); got != tc.want {
				t.Fatalf("status %d (%s), want %d", got, body, tc.want)
			}
		})
	}
}

const (
	liveBundle     = `{"id":"a","metadata":{"name":"a"}}`
	deletedBundle  = `{"id":"b","deleted_at":"2026-01-01T00:00:00Z","metadata":{"name":"b"}}`
	deletingBundle = `{"id":"c","metadata":{"name":"c","deletionTimestamp":"2026-01-01T00:00:00Z"}}`
	nullDeletedAt  = `{"id":"d","deleted_at":null,"metadata":{"name":"d"}}`
)

func TestNoWaitProxy(t *testing.T) {
	list := `{"kind":"ResourceBundleList","page":1,"size":4,"total":9,"items":[` +
		liveBundle + "," + deletedBundle + "," + deletingBundle + "," + nullDeletedAt + `]}`
	for _, tc := range []struct {
		name, method, path, body string
		code, want               int
		wantIDs                  string // of a list answer
		wantSize, wantTotal      int
	}{
		{name: "live bundle", method: "GET", path: bundlesPath + "/a", body: liveBundle, code: 200, want: 200},
		{name: "null deleted_at is live", method: "GET", path: bundlesPath + "/d", body: nullDeletedAt, code: 200, want: 200},
		{name: "deleted_at hidden", method: "GET", path: bundlesPath + "/b", body: deletedBundle, code: 200, want: 404},
		{name: "deletionTimestamp hidden", method: "GET", path: bundlesPath + "/c", body: deletingBundle, code: 200, want: 404},
		{name: "DELETE passes", method: "DELETE", path: bundlesPath + "/b", body: deletedBundle, code: 200, want: 200},
		{name: "error passes", method: "GET", path: bundlesPath + "/b", body: `{}`, code: 503, want: 503},
		{name: "list drops deleting", method: "GET", path: bundlesPath + "?search=x", body: list, code: 200, want: 200,
			wantIDs: "a,d", wantSize: 2, wantTotal: 7},
		{name: "list without deleting unchanged", method: "GET", path: bundlesPath, code: 200, want: 200,
			body:    `{"size":1,"total":1,"items":[` + liveBundle + `]}`,
			wantIDs: "a", wantSize: 1, wantTotal: 1},
		{name: "consumers untouched", method: "GET", path: "/api/maestro/v1/consumers", body: deletedBundle, code: 200, want: 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, body := proxied(t, brokenNoWait, tc.method, tc.path, tc.code, tc.body)
			if got != tc.want {
				t.Fatalf("status %d (%s), want %d", got, body, tc.want)
			}
			if tc.wantIDs == "" {
				if got == 200 && body != tc.body {
					t.Fatalf("body %s, want it unchanged: %s", body, tc.body)
				}
				return
			}
			var l struct {
				Size, Total int
				Items       []struct{ ID string }
			}
			if err := json.Unmarshal([]byte(body), &l); err != nil {
				t.Fatalf("%v: %s", err, body)
			}
			var ids []string
			for _, it := range l.Items {
				ids = append(ids, it.ID)
			}
			if strings.Join(ids, ",") != tc.wantIDs || l.Size != tc.wantSize || l.Total != tc.wantTotal {
				t.Fatalf("ids %v size %d total %d, want %s %d %d", ids, l.Size, l.Total, tc.wantIDs, tc.wantSize, tc.wantTotal)
			}
		})
	}
}

func TestBrokenHandlerRefusesUnknown(t *testing.T) {
	for _, tc := range []struct{ name, target, want string }{
		{"late", "http://127.0.0.1:1", `not "late"`},
		{brokenNoWait, "127.0.0.1:1", "not an absolute URL"},
	} {
		if _, err := brokenHandler(tc.name, tc.target); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %s: err %v, want %q", tc.name, tc.target, err, tc.want)
		}
	}
}
