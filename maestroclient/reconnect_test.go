package maestroclient

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	cloudevents "github.com/cloudevents/sdk-go/v2"
	ceclients "open-cluster-management.io/sdk-go/pkg/cloudevents/generic/clients"
	ceoptions "open-cluster-management.io/sdk-go/pkg/cloudevents/generic/options"
)

// sdk-go's wait before every reconnect is ours: bounded by
// ReconnectMaxDelay whatever happened before, for every client of the
// process. sdk-go's own grows to 1 to 2 minutes within four calls.
func TestReconnectDelayIsBounded(t *testing.T) {
	for i := range 1000 {
		d := ceclients.DelayFn()
		if d < ReconnectMinDelay || d >= ReconnectMaxDelay {
			t.Fatalf("call %d: sdk-go waits %s before a reconnect; want within [%s, %s)", i, d, ReconnectMinDelay, ReconnectMaxDelay)
		}
	}
}

// waitsInSDK are the waits of the sdk-go packages this client links (its
// reconnect path among them), by file and what they wait on, with how many
// there are and why each is bounded. A wait added by an sdk-go upgrade
// fails TestEverySDKWaitIsKnown until it is looked at and listed here.
var waitsInSDK = map[string]struct {
	count int
	why   string
}{
	"generic/clients/baseclient.go: DelayFn = wait.Backoff{":    {1, "sdk-go's reconnect backoff: replaced by reconnectDelay at init"},
	"generic/clients/baseclient.go: RealTimer(":                 {3, "the waits after a lost connection, a failed reconnect and a failed subscribe: each on DelayFn(), ours"},
	"clients/store/interface.go: PollUntilContextCancel(":       {1, "WaitForStoreInit, for informer stores; the REST store is initiated from the start"},
	"generic/options/cert/rotation.go: UntilWithContext(":       {1, "sdk-go's client certificate reloader, for its cert config; unused (our TLS reads the files at every handshake)"},
	"generic/options/cert/rotation.go: PollUntilContextCancel(": {1, "the same reloader's first load"},
	"server/grpc/heartbeat/healthcheck.go: time.NewTimer(":      {1, "Options.ServerHealthinessTimeout: a silent server counts as lost after it, then DelayFn"},
	"server/grpc/heartbeat/heartbeat.go: time.NewTicker(":       {1, "the server's heartbeat sender (Maestro's side), not run by a client"},
}

// waitPattern matches the ways Go code waits: timers, sleeps, k8s wait
// helpers and backoffs, gRPC's backoff configuration.
var waitPattern = regexp.MustCompile(`wait\.Backoff\{|time\.Sleep\(|time\.After\(|time\.NewTimer\(|` +
	`time\.NewTicker\(|time\.Tick\(|wait\.[A-Z][A-Za-z]*\(|backoff\.Config\{|grpc\.WithConnectParams\(`)

// Every wait in the sdk-go packages this client links is listed in
// waitsInSDK (read from the module's source in the module cache).
func TestEverySDKWaitIsKnown(t *testing.T) {
	root, pkgs := sdkPackages(t)
	found := map[string]int{}
	var where []string
	for _, pkg := range pkgs {
		for _, file := range goFiles(t, filepath.Join(root, pkg)) {
			rel := filepath.ToSlash(filepath.Join(pkg, filepath.Base(file)))
			for n, line := range strings.Split(readTestFile(t, file), "\n") {
				for _, m := range waitPattern.FindAllString(line, -1) {
					key := waitKey(rel, line, m)
					found[key]++
					where = append(where, fmt.Sprintf("%s:%d: %s", rel, n+1, strings.TrimSpace(line)))
				}
			}
		}
	}
	for key, n := range found {
		if w, ok := waitsInSDK[key]; !ok || w.count != n {
			t.Errorf("sdk-go wait %q found %d times, listed %d: read it (bounded? on the reconnect path?) and list it in waitsInSDK", key, n, w.count)
		}
	}
	for key := range waitsInSDK {
		if found[key] == 0 {
			t.Errorf("listed sdk-go wait %q is gone: update waitsInSDK", key)
		}
	}
	if t.Failed() {
		sort.Strings(where)
		t.Logf("waits found under %s:\n%s", root, strings.Join(where, "\n"))
	}
}

// waitKey names a wait by file and what it waits on: for the DelayFn
// declaration the variable it initializes; a timer not on DelayFn apart.
func waitKey(file, line, match string) string {
	if strings.Contains(line, "DelayFn = ") {
		return file + ": DelayFn = " + match
	}
	match = strings.TrimPrefix(match, "wait.")
	if match == "RealTimer(" && !strings.Contains(line, "RealTimer(DelayFn())") {
		match = "RealTimer(not DelayFn)"
	}
	return file + ": " + match
}

// sdkPackages returns sdk-go's module directory and the directories
// (relative to its pkg/cloudevents) of the packages this client links.
func sdkPackages(t *testing.T) (string, []string) {
	t.Helper()
	const module = "open-cluster-management.io/sdk-go"
	dir, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", module).Output()
	if err != nil || strings.TrimSpace(string(dir)) == "" {
		t.Fatalf("go list -m %s: %v (download it: go mod download %s)", module, err, module)
	}
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	const prefix = module + "/pkg/cloudevents/"
	var pkgs []string
	for _, p := range strings.Fields(string(out)) {
		if strings.HasPrefix(p, prefix) {
			pkgs = append(pkgs, strings.TrimPrefix(p, prefix))
		}
	}
	if len(pkgs) == 0 {
		t.Fatal("no sdk-go cloudevents package among this package's dependencies")
	}
	return filepath.Join(strings.TrimSpace(string(dir)), "pkg", "cloudevents"), pkgs
}

func goFiles(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range files {
		if !strings.HasSuffix(f, "_test.go") {
			out = append(out, f)
		}
	}
	return out
}

func readTestFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// fakeTransport is a CloudEventTransport whose Connect fails on demand.
type fakeTransport struct {
	ceoptions.CloudEventTransport
	connectErr error
}

func (f *fakeTransport) Connect(context.Context) error { return f.connectErr }
func (f *fakeTransport) Close(context.Context) error   { return nil }
func (f *fakeTransport) Send(context.Context, cloudevents.Event) error {
	return nil
}

// watchedTransport follows sdk-go's client: up after a Connect that
// succeeded, down after Close (the connection lost) and after a Connect
// that failed.
func TestWatchedTransportFollowsTheConnection(t *testing.T) {
	inner := &fakeTransport{}
	w := &watchedTransport{CloudEventTransport: inner}
	steps := []struct {
		name string
		do   func() error
		want bool
	}{
		{"new", func() error { return nil }, false},
		{"connected", func() error { return w.Connect(t.Context()) }, true},
		{"lost", func() error { return w.Close(t.Context()) }, false},
		{"reconnect failed", func() error {
			inner.connectErr = errors.New("refused")
			_ = w.Connect(t.Context())
			return nil
		}, false},
		{"reconnected", func() error { inner.connectErr = nil; return w.Connect(t.Context()) }, true},
	}
	for _, s := range steps {
		if err := s.do(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if got := w.connected(); got != s.want {
			t.Errorf("%s: connected = %v, want %v", s.name, got, s.want)
		}
	}
}

// Ping, the readiness check, fails while a source client waits to
// reconnect (its writes fail meanwhile), naming it, though Maestro's REST
// API answers; it passes again once the client holds its connection.
// SourceClients (the metric's reading) counts the same clients.
func TestPingNotReadyWhileReconnecting(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	p, err := NewPool(t.Context(), Options{GRPC: TLSOptions{Insecure: true}, HTTPURL: srv.URL,
		HTTP: TLSOptions{Insecure: true}, Clients: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if err := p.Ping(t.Context()); err != nil {
		t.Fatalf("connected pool: %v", err)
	}
	if c, n := p.SourceClients(); c != 3 || n != 3 {
		t.Errorf("connected pool: SourceClients = %d of %d, want 3 of 3", c, n)
	}
	p.clients[1].transport.up.Store(false)
	if c, n := p.SourceClients(); c != 2 || n != 3 {
		t.Errorf("client 1 reconnecting: SourceClients = %d of %d, want 2 of 3", c, n)
	}
	err = p.Ping(t.Context())
	if err == nil || !strings.Contains(err.Error(), "client 1 of 3 reconnecting") {
		t.Errorf("client 1 reconnecting: Ping = %v, want an error naming client 1 of 3", err)
	}
	p.clients[1].transport.up.Store(true)
	if err := p.Ping(t.Context()); err != nil {
		t.Errorf("reconnected: %v", err)
	}
}
