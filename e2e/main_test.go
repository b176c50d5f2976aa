package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// stack is what hack/stack.sh started, from its environment.
type stack struct {
	restURL, grpcAddr, kubeconfig, consumer, rabbitURL string
}

var (
	adapterBin string
	theStack   *stack
)

func TestMain(m *testing.M) {
	s := &stack{
		restURL:    os.Getenv("MAESTRO_REST_URL"),
		grpcAddr:   os.Getenv("MAESTRO_GRPC_ADDR"),
		kubeconfig: os.Getenv("KUBECONFIG"),
		consumer:   envOr("E2E_CONSUMER", "cluster1"),
		rabbitURL:  envOr("E2E_RABBITMQ_URL", "amqp://guest:guest@127.0.0.1:5672/"),
	}
	if os.Getenv("E2E_STACK") == "1" && s.restURL != "" && s.grpcAddr != "" && s.kubeconfig != "" {
		theStack = s
	}
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

var (
	buildOnce sync.Once
	buildDir  string
	buildErr  error
)

// buildAdapter builds the adapter binary once per run.
func buildAdapter(t *testing.T) {
	t.Helper()
	buildOnce.Do(func() {
		if buildDir, buildErr = os.MkdirTemp("", "bundle-adapter-e2e"); buildErr != nil {
			return
		}
		adapterBin = filepath.Join(buildDir, "bundle-adapter")
		out, err := exec.Command("go", "build", "-o", adapterBin, "../cmd/bundle-adapter").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("building the adapter: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
}

// requireStack skips a test when the real stack is not up.
func requireStack(t *testing.T) *stack {
	t.Helper()
	if theStack == nil {
		t.Skip("end-to-end: the real stack is not up; run `make e2e` (or eval \"$(hack/stack.sh env)\" after hack/stack.sh up)")
	}
	buildAdapter(t)
	return theStack
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
