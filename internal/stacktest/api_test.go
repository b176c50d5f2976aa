package stacktest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func startAPI(t *testing.T, o APIOptions) *API {
	t.Helper()
	a, err := StartAPI(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	return a
}

func call(t *testing.T, method, url, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// The API serves stored clusters, 404 for others, 200 on the base URL,
// and records status PUTs by cluster.
func TestAPIServesAndRecords(t *testing.T) {
	a := startAPI(t, APIOptions{})
	a.SetCluster("c1", map[string]any{"id": "c1", "generation": 1})
	a.UpdateCluster("c1", func(c map[string]any) { c["generation"] = 2 })
	if code, body := call(t, http.MethodGet, a.URL+ClustersPath+"c1", ""); code != 200 || body != `{"generation":2,"id":"c1"}` {
		t.Errorf("GET c1: %d %s", code, body)
	}
	if code, _ := call(t, http.MethodGet, a.URL+ClustersPath+"c2", ""); code != 404 {
		t.Errorf("GET c2: %d, want 404", code)
	}
	if code, _ := call(t, http.MethodGet, a.URL+"/api/hyperfleet/v1", ""); code != 200 {
		t.Errorf("GET base URL: %d, want 200", code)
	}
	for _, s := range []string{`{"n":1}`, `{"n":2}`} {
		if code, body := call(t, http.MethodPut, a.URL+ClustersPath+"c1/statuses", s); code != 200 || body != "{}" {
			t.Errorf("PUT: %d %s", code, body)
		}
	}
	if code, _ := call(t, http.MethodPut, a.URL+ClustersPath+"c1/statuses", "not json"); code != 400 {
		t.Errorf("PUT of a non-JSON body: %d, want 400", code)
	}
	if n, last := a.StatusCount("c1"), a.LastStatus("c1"); n != 2 || last["n"] != 2.0 {
		t.Errorf("%d statuses, last %v", n, last)
	}
	if a.LastStatus("c2") != nil || a.Cluster("c2") != nil {
		t.Error("c2 has a status or a cluster")
	}
	if gets, puts := a.Counts(); gets != 2 || puts != 3 {
		t.Errorf("counts: %d gets, %d puts", gets, puts)
	}
	if a.Connections() < 1 {
		t.Errorf("%d connections", a.Connections())
	}
}

// FailPuts answers 503 to the next n PUTs, which are not recorded.
func TestAPIFailPuts(t *testing.T) {
	a := startAPI(t, APIOptions{})
	a.FailPuts(2)
	var codes []int
	for range 3 {
		code, _ := call(t, http.MethodPut, a.URL+ClustersPath+"c1/statuses", `{}`)
		codes = append(codes, code)
	}
	if codes[0] != 503 || codes[1] != 503 || codes[2] != 200 || a.StatusCount("c1") != 1 {
		t.Errorf("codes %v, %d recorded", codes, a.StatusCount("c1"))
	}
}

// HoldPuts keeps a PUT waiting until release; it is recorded afterwards.
func TestAPIHoldPuts(t *testing.T) {
	a := startAPI(t, APIOptions{})
	held, release := a.HoldPuts()
	done := make(chan int)
	go func() {
		code, _ := call(t, http.MethodPut, a.URL+ClustersPath+"c1/statuses", `{}`)
		done <- code
	}()
	select {
	case <-held:
	case <-time.After(5 * time.Second):
		t.Fatal("the PUT was not held")
	}
	select {
	case <-done:
		t.Fatal("the held PUT was answered")
	case <-time.After(100 * time.Millisecond):
	}
	if a.StatusCount("c1") != 0 {
		t.Error("a held PUT was recorded")
	}
	release()
	release() // twice is harmless
	if code := <-done; code != 200 || a.StatusCount("c1") != 1 {
		t.Errorf("after release: %d, %d recorded", code, a.StatusCount("c1"))
	}
}

// With OnStatus, PUT bodies go to the hook, whatever they hold.
func TestAPIOnStatus(t *testing.T) {
	got := make(chan string, 2)
	a := startAPI(t, APIOptions{OnStatus: func(id string, body []byte, at time.Time) {
		if at.IsZero() {
			t.Error("no time")
		}
		got <- id + " " + string(body)
	}})
	if code, _ := call(t, http.MethodPut, a.URL+ClustersPath+"c9/statuses", "not json"); code != 200 {
		t.Errorf("PUT: %d", code)
	}
	if g := <-got; g != "c9 not json" || a.StatusCount("c9") != 0 {
		t.Errorf("hook got %q; %d recorded", g, a.StatusCount("c9"))
	}
}

func TestScrape(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Write([]byte(`# HELP x
bundle_adapter_maestro_requests_total{code="ok",verb="get"} 10
bundle_adapter_maestro_requests_total{code="not_found",verb="get"} 2
bundle_adapter_maestro_requests_total{code="ok",verb="get_bundles"} 5
bundle_adapter_maestro_requests_total{code="ok",verb="create"} 3
bundle_adapter_maestro_requests_total{code="error",verb="delete"} 1
bundle_adapter_events_total{outcome="acked"} 7
process_resident_memory_bytes 1.2e+07
`))
	}))
	defer srv.Close()
	m, err := Scrape(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if m.MaestroReads() != 17 || m.MaestroWrites() != 4 || m.Sum("bundle_adapter_events_total") != 7 ||
		m.Sum(MaestroRequests, `verb="get"`, `code="ok"`) != 10 || m.Sum("process_resident_memory_bytes") != 1.2e7 {
		t.Errorf("reads %v writes %v", m.MaestroReads(), m.MaestroWrites())
	}
	by := m.By(MaestroRequests, "verb")
	if by["get"] != 12 || by["get_bundles"] != 5 || by["create"] != 3 || by["delete"] != 1 || len(by) != 4 {
		t.Errorf("by verb %v", by)
	}
}

func TestEventJSON(t *testing.T) {
	at := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	var ev map[string]any
	if err := json.Unmarshal(Event{ID: "e1", ClusterID: "c1", Generation: 2, Time: at}.JSON(), &ev); err != nil {
		t.Fatal(err)
	}
	data, _ := ev["data"].(map[string]any)
	if ev["specversion"] != "1.0" || ev["id"] != "e1" || ev["type"] != ReconcileType || ev["source"] != "hyperfleet-sentinel" ||
		ev["time"] != "2026-11-30T10:00:00Z" || data["id"] != "c1" || data["kind"] != "Cluster" ||
		data["generation"] != 2.0 || data["href"] != ClustersPath+"c1" {
		t.Errorf("event %v", ev)
	}
	if err := json.Unmarshal(Event{ID: "e1", Source: "bench"}.JSON(), &ev); err != nil || ev["source"] != "bench" {
		t.Errorf("source %v (%v)", ev["source"], err)
	}
	delete(ev, "time")
	if json.Unmarshal(Event{ID: "e2"}.JSON(), &ev); ev["time"] != nil {
		t.Errorf("time %v without Time", ev["time"])
	}
}

// With Token set, cluster requests without "Bearer <Token>" answer 401 and
// are neither served nor recorded; the base URL (readiness) stays open.
func TestAPIRequiresToken(t *testing.T) {
	a := startAPI(t, APIOptions{Token: "s3cret"})
	a.SetCluster("c1", map[string]any{"id": "c1"})
	send := func(method, path, auth string) int {
		req, err := http.NewRequest(method, a.URL+path, strings.NewReader(`{"n":1}`))
		if err != nil {
			t.Fatal(err)
		}
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, auth := range []string{"", "Bearer wrong", "s3cret", "Basic s3cret"} {
		if code := send(http.MethodGet, ClustersPath+"c1", auth); code != 401 {
			t.Errorf("GET with Authorization %q: %d, want 401", auth, code)
		}
		if code := send(http.MethodPut, ClustersPath+"c1/statuses", auth); code != 401 {
			t.Errorf("PUT with Authorization %q: %d, want 401", auth, code)
		}
	}
	if n := a.StatusCount("c1"); n != 0 {
		t.Errorf("%d statuses recorded from unauthorized PUTs", n)
	}
	if gets, puts := a.Counts(); gets != 0 || puts != 0 {
		t.Errorf("unauthorized requests counted: %d gets, %d puts", gets, puts)
	}
	if code := send(http.MethodGet, "/api/hyperfleet", ""); code != 200 {
		t.Errorf("GET of the base URL without a token: %d, want 200", code)
	}
	if code := send(http.MethodGet, ClustersPath+"c1", "Bearer s3cret"); code != 200 {
		t.Errorf("GET with the token: %d, want 200", code)
	}
	if code := send(http.MethodPut, ClustersPath+"c1/statuses", "Bearer s3cret"); code != 200 || a.StatusCount("c1") != 1 {
		t.Errorf("PUT with the token: %d, %d recorded", code, a.StatusCount("c1"))
	}
	if got := a.Unauthorized(); got != 8 {
		t.Errorf("Unauthorized() = %d, want 8", got)
	}
}

// GET of a cluster's statuses answers the newest status of each adapter,
// seeded or recorded; a seeded status is not a PUT and not recorded.
func TestAPIStatusesListsNewestPerAdapter(t *testing.T) {
	a := startAPI(t, APIOptions{})
	a.SeedStatus("c1", map[string]any{"adapter": "old", "n": 1})
	a.SeedStatus("c1", map[string]any{"adapter": "old", "n": 2})
	if code, body := call(t, http.MethodGet, a.URL+ClustersPath+"c1/statuses", ""); code != 200 || body != `{"items":[{"adapter":"old","n":2}]}` {
		t.Errorf("GET statuses after seeding: %d %s", code, body)
	}
	if _, puts := a.Counts(); puts != 0 || a.StatusCount("c1") != 0 || a.LastStatus("c1") != nil {
		t.Errorf("seeding counted as a PUT: %d PUTs, %d recorded", puts, a.StatusCount("c1"))
	}
	call(t, http.MethodPut, a.URL+ClustersPath+"c1/statuses", `{"adapter":"new","n":3}`)
	call(t, http.MethodPut, a.URL+ClustersPath+"c1/statuses", `{"adapter":"old","n":4}`)
	want := `{"items":[{"adapter":"old","n":4},{"adapter":"new","n":3}]}`
	if code, body := call(t, http.MethodGet, a.URL+ClustersPath+"c1/statuses", ""); code != 200 || body != want {
		t.Errorf("GET statuses: %d %s, want %s", code, body, want)
	}
	if code, body := call(t, http.MethodGet, a.URL+ClustersPath+"c2/statuses", ""); code != 200 || body != `{"items":[]}` {
		t.Errorf("GET statuses of a cluster without any: %d %s", code, body)
	}
}

// An API started on a reserved address serves there: a test hands the
// URL out before the API answers.
func TestAPIListensOnAddr(t *testing.T) {
	addr, err := FreeAddr()
	if err != nil {
		t.Fatal(err)
	}
	a, err := StartAPI(APIOptions{Addr: addr})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if a.URL != "http://"+addr {
		t.Errorf("URL %s, want http://%s", a.URL, addr)
	}
}
