package main

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bundle-adapter/bundle-adapter/config"
)

// stopBeforeConnecting makes serve return where it would start to connect
// (servePlanned) and reports the plan it got there with; nil while serve
// did not get there.
func stopBeforeConnecting(t *testing.T) func() *startPlan {
	t.Helper()
	var got *startPlan
	saved := servePlanned
	servePlanned = func(_ context.Context, _ *config.Config, plan *startPlan, _ listeners, _ *slog.Logger) error {
		got = plan
		return nil
	}
	t.Cleanup(func() { servePlanned = saved })
	return func() *startPlan { p := got; got = nil; return p }
}

// verdicts runs validate and serve (up to connecting) on the same files
// and returns validate's exit code, its stderr, and whether serve got to
// connecting.
func verdicts(t *testing.T, reached func() *startPlan, files []string) (int, string, bool, string) {
	t.Helper()
	code, _, errOut := runCLI(t, append([]string{"validate"}, files...)...)
	serveCode, _, serveErr := runCLI(t, append([]string{"serve", "--listen", "127.0.0.1:0", "--metrics-listen", ""}, files...)...)
	started := reached() != nil
	if started != (serveCode == 0) {
		t.Fatalf("serve exited %d but got to connecting: %v\n%s", serveCode, started, serveErr)
	}
	return code, errOut, started, serveErr
}

// validate == serve (issue 28): for every example and every fixture of the
// config tests (hostile, broken, HyperFleet's shapes, ...), tried as the
// adapter, the task and the broker config beside the onprem example's
// other two, validate passes exactly when serve's start-up gets to
// connecting. Their errors need not read the same; their verdicts must.
func TestValidateEqualsServe(t *testing.T) {
	reached := stopBeforeConnecting(t)
	base := map[string]string{"-c": ex + "onprem/adapter-config.yaml", "-t": ex + "onprem/task-config.yaml", "--broker-config": ex + "onprem/broker.yaml"}
	var fixtures []string
	for _, glob := range []string{"../../config/examples/*/*.yaml", "../../config/testdata/*/*.yaml",
		"../../charts/bundle-adapter/examples/*/*.yaml", "testdata/hyperfleet-shapes/*/*.yaml"} {
		m, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		fixtures = append(fixtures, m...)
	}
	if len(fixtures) < 80 {
		t.Fatalf("found %d fixtures; the globs are wrong", len(fixtures))
	}
	passed, refused := 0, 0
	for _, f := range fixtures {
		for _, role := range []string{"-c", "-t", "--broker-config"} {
			args := []string{}
			for _, r := range []string{"-c", "-t", "--broker-config"} {
				file := base[r]
				if r == role {
					file = f
				}
				args = append(args, r, file)
			}
			if strings.Contains(f, "hyperfleet-shapes") {
				args = append(args, "--ref-root", "/etc/adapter="+filepath.Dir(f))
			}
			name := strings.TrimPrefix(f, "../../") + " as " + role
			code, errOut, started, serveErr := verdicts(t, reached, args)
			if (code == 0) != started {
				t.Errorf("%s: validate exit %d, serve got to connecting: %v\nvalidate: %s\nserve: %s", name, code, started, errOut, serveErr)
			}
			if started {
				passed++
			} else {
				refused++
			}
		}
	}
	t.Logf("%d fixtures x 3 roles: %d passed both, %d refused by both", len(fixtures), passed, refused)
	if passed == 0 || refused == 0 {
		t.Errorf("passed %d, refused %d: the comparison proves nothing", passed, refused)
	}
}

// writeKubeOnly writes a kubernetes-only adapter config whose kubeconfig
// is a file that loads, and returns its path.
func writeKubeOnly(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "kubeconfig")
	mustWrite(t, kubeconfig, `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:6443", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`)
	src, err := os.ReadFile("../../config/testdata/kubernetes/adapter-config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	adapterConfig := filepath.Join(dir, "adapter-config.yaml")
	mustWrite(t, adapterConfig, strings.Replace(string(src), "/var/run/fixture/kubeconfig", kubeconfig, 1))
	return adapterConfig
}

func mustWrite(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// Finding 17 of issue 28: a kubernetes-only adapter config with a task
// config without resources passed validate, and serve exited ("maestro
// client: ... plaintext"): it built a Maestro client from nothing. Both now
// pass, and serve builds the kubernetes client it is configured with and
// no Maestro client.
func TestKubeOnlyTaskWithoutResourcesServes(t *testing.T) {
	reached := stopBeforeConnecting(t)
	files := []string{"-c", writeKubeOnly(t), "-t", "../../config/testdata/kubernetes/status-only.yaml", "--broker-config", ex + "onprem/broker.yaml"}
	code, _, errOut := runCLI(t, append([]string{"validate"}, files...)...)
	if code != 0 {
		t.Fatalf("validate: exit %d\n%s", code, errOut)
	}
	code, _, errOut = runCLI(t, append([]string{"serve", "--listen", "127.0.0.1:0", "--metrics-listen", ""}, files...)...)
	plan := reached()
	if code != 0 || plan == nil {
		t.Fatalf("serve: exit %d before connecting\n%s", code, errOut)
	}
	if plan.maestro != nil || plan.kube == nil || plan.kubeClient == nil {
		t.Errorf("plan: maestro %v, kube %v, kube client %v; want no Maestro and the configured kubernetes client", plan.maestro, plan.kube, plan.kubeClient)
	}
}

// Hostile values through the environment and the flags reach validate and
// serve alike: both refuse them, or both pass.
func TestValidateEqualsServeWithOverrides(t *testing.T) {
	reached := stopBeforeConnecting(t)
	long := strings.Repeat("q", 250)
	tests := []struct {
		name  string
		env   map[string]string
		flags []string
		ok    bool
	}{
		{"parallelism 10^12", map[string]string{"SUBSCRIBER_PARALLELISM": "1000000000000"}, nil, false},
		{"parallelism 1024", map[string]string{"SUBSCRIBER_PARALLELISM": "1024"}, nil, true},
		{"parallelism 1e3", map[string]string{"SUBSCRIBER_PARALLELISM": "1e3"}, nil, false},
		{"prefetch 65536", map[string]string{"BROKER_RABBITMQ_PREFETCH_COUNT": "65536"}, nil, false},
		{"prefetch 0x10", map[string]string{"BROKER_RABBITMQ_PREFETCH_COUNT": "0x10"}, nil, false},
		{"prefetch 65535", map[string]string{"BROKER_RABBITMQ_PREFETCH_COUNT": "65535"}, nil, true},
		{"queue of 250 bytes: its dead-letter queue is over 255", map[string]string{"BROKER_RABBITMQ_QUEUE": long}, nil, false},
		{"topic of 250 bytes from a flag", nil, []string{"--broker-topic=" + long}, false},
		{"maestro retry attempts -1 (serve's client refused it)", nil, []string{"--maestro-retry-attempts=-1"}, false},
		{"maestro http address plaintext without insecure", map[string]string{"HYPERFLEET_MAESTRO_INSECURE": "false"}, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			files := append([]string{"-c", ex + "onprem/adapter-config.yaml", "-t", ex + "onprem/task-config.yaml", "--broker-config", ex + "onprem/broker.yaml"}, tt.flags...)
			code, errOut, started, serveErr := verdicts(t, reached, files)
			if (code == 0) != started || started != tt.ok {
				t.Errorf("validate exit %d, serve got to connecting: %v; want both %v\nvalidate: %s\nserve: %s", code, started, tt.ok, errOut, serveErr)
			}
		})
	}
}
