package maestroclient_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/maestroclient"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/agentsim"
)

// Environment of the integration tests; hack/maestro.sh start prints it.
const (
	envREST    = "MAESTRO_REST_URL"    // e.g. http://127.0.0.1:8000
	envGRPC    = "MAESTRO_GRPC_ADDR"   // e.g. 127.0.0.1:8090
	envBroker  = "MAESTRO_BROKER_ADDR" // e.g. 127.0.0.1:8091 (default)
	envRestart = "MAESTRO_TEST_RESTART"
	envGRPCCA  = "MAESTRO_GRPC_CA_FILE" // set when the source gRPC API serves TLS
)

type server struct {
	rest, grpc, broker string
	grpcTLS            maestroclient.TLSOptions
}

// requireServer skips the test unless a Maestro server is configured.
func requireServer(t *testing.T) server {
	t.Helper()
	s := server{rest: os.Getenv(envREST), grpc: os.Getenv(envGRPC), broker: os.Getenv(envBroker)}
	if s.rest == "" || s.grpc == "" {
		t.Skipf("integration test: set %s and %s (eval \"$(hack/maestro.sh env)\" after hack/maestro.sh start)",
			envREST, envGRPC)
	}
	if s.broker == "" {
		s.broker = agentsim.DefaultBrokerAddress
	}
	s.grpcTLS = maestroclient.TLSOptions{Insecure: true}
	if ca := os.Getenv(envGRPCCA); ca != "" {
		s.grpcTLS = maestroclient.TLSOptions{CAFile: ca}
	}
	return s
}

// testLogger logs warnings and errors through t.Log, so they show for
// failing tests only; lines written after the test ended are dropped.
func testLogger(t *testing.T) *slog.Logger {
	w := &tWriter{t: t}
	t.Cleanup(w.close)
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

type tWriter struct {
	mu     sync.Mutex
	t      *testing.T
	closed bool
}

func (w *tWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.closed {
		w.t.Log(strings.TrimRight(string(p), "\n"))
	}
	return len(p), nil
}

func (w *tWriter) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closed = true
}

func newClient(t *testing.T, s server, edit func(*maestroclient.Options)) *maestroclient.Client {
	t.Helper()
	opts := maestroclient.Options{
		GRPCAddress: s.grpc, GRPC: s.grpcTLS,
		HTTPURL: s.rest, HTTP: maestroclient.TLSOptions{Insecure: strings.HasPrefix(s.rest, "http:")},
		SourceID: "maestroclient-test", Timeout: 10 * time.Second, Logger: testLogger(t),
	}
	if edit != nil {
		edit(&opts)
	}
	c, err := maestroclient.New(context.Background(), opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// unique returns prefix plus a random suffix, a valid consumer or bundle name.
func unique(prefix string) string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return prefix + "-" + hex.EncodeToString(b)
}

// register registers a fresh consumer and returns its name.
func register(t *testing.T, s server, prefix string) string {
	t.Helper()
	name := unique(prefix)
	body, _ := json.Marshal(map[string]string{"name": name})
	resp, err := http.Post(s.rest+"/api/maestro/v1/consumers", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatalf("register consumer %s: %v", name, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("register consumer %s: HTTP %d", name, resp.StatusCode)
	}
	return name
}

func startAgent(t *testing.T, s server, consumer string, edit func(*agentsim.Options)) *agentsim.Agent {
	t.Helper()
	opts := agentsim.Options{BrokerAddress: s.broker, Consumer: consumer, Logger: testLogger(t)}
	if edit != nil {
		edit(&opts)
	}
	a, err := agentsim.Start(context.Background(), opts)
	if err != nil {
		t.Fatalf("start agent: %v", err)
	}
	t.Cleanup(a.Stop)
	return a
}

// bundle is a one-ConfigMap ManifestWork whose data carries value.
func bundle(name, value string) *workv1.ManifestWork {
	cm := fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":%q,"namespace":"default"},"data":{"value":%q}}`,
		name, value)
	return &workv1.ManifestWork{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"test": "maestroclient"}},
		Spec: workv1.ManifestWorkSpec{Workload: workv1.ManifestsTemplate{
			Manifests: []workv1.Manifest{{RawExtension: runtime.RawExtension{Raw: []byte(cm)}}},
		}},
	}
}

// eventually polls cond every 50 ms until it returns nil or timeout passes.
func eventually(t *testing.T, timeout time.Duration, what string, cond func() error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		err := cond()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s: %v", what, timeout, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
