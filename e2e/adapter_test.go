package e2e

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bundle-adapter/bundle-adapter/broker/rabbitmq"
)

// adapterProc is one running `bundle-adapter serve` with config files of its
// own: the onprem example's task config against the test's API and broker
// names.
type adapterProc struct {
	t      *testing.T
	dir    string
	listen string
	cmd    *exec.Cmd
	done   chan error
	log    *os.File
	st     *stack
	topic  string
	broker string // broker.yaml content
}

func unique(prefix string) string {
	b := make([]byte, 3)
	rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

// newAdapterDir writes the configs for an adapter: the onprem example's
// task config and bundles (editBundle may change a bundle file), an adapter
// config for the test's API and the stack's Maestro, and a broker config.
func newAdapterDir(t *testing.T, st *stack, api *hyperfleetAPI, topic, brokerYAML string) string {
	t.Helper()
	dir := t.TempDir()
	copyTree(t, "../config/examples/onprem", dir, "task-config.yaml", "bundles")
	adapterCfg := adapterConfig(api, topic, st.grpcAddr, st.restURL, "e2e-"+topic, "    insecure: true\n")
	writeFile(t, filepath.Join(dir, "adapter-config.yaml"), adapterCfg)
	writeFile(t, filepath.Join(dir, "broker.yaml"), brokerYAML)
	return dir
}

// adapterConfig is an adapter config for the test's API and a Maestro;
// auth holds the indented lines that secure the Maestro connection.
func adapterConfig(api *hyperfleetAPI, topic, grpcAddr, restURL, source, auth string) string {
	return fmt.Sprintf(`adapter: {name: %q, version: "0.1.0"}
log: {level: debug, format: json}
clients:
  hyperfleet_api: {base_url: %q, version: v1, timeout: 5s, retry_attempts: 2}
  broker: {subscription_id: e2e, topic: %q}
  maestro:
    grpc_server_address: %q
    http_server_address: %q
    source_id: %q
    timeout: 10s
`, adapterName(topic), api.srv.URL, topic, grpcAddr, restURL, source) + auth
}

func rabbitBroker(st *stack, topic string) string {
	return fmt.Sprintf(`broker:
  type: rabbitmq
  rabbitmq: {url: %q, exchange: %q, exchange_type: topic, prefetch_count: 10}
  delivery: {max_deliveries: 30, min_backoff: 1s, max_backoff: 10s}
subscriber: {parallelism: 4, shutdown_timeout: 20s}
`, st.rabbitURL, topic)
}

// startAdapter starts serve on dir and waits until /readyz answers 200.
func startAdapter(t *testing.T, st *stack, dir, topic string) *adapterProc {
	t.Helper()
	p := &adapterProc{t: t, dir: dir, listen: freeAddr(t), st: st, topic: topic}
	logFile, err := os.Create(filepath.Join(dir, fmt.Sprintf("adapter-%d.log", time.Now().UnixNano())))
	if err != nil {
		t.Fatal(err)
	}
	p.log = logFile
	p.cmd = exec.Command(adapterBin, "serve", "--config", filepath.Join(dir, "adapter-config.yaml"),
		"--task-config", filepath.Join(dir, "task-config.yaml"), "--broker-config", filepath.Join(dir, "broker.yaml"),
		"--listen", p.listen)
	p.cmd.Env = append(os.Environ(), "MAESTRO_CONSUMER="+st.consumer, "VALIDATOR_IMAGE=busybox:1.36")
	p.cmd.Stdout, p.cmd.Stderr = logFile, logFile
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p.done = make(chan error, 1)
	go func() { p.done <- p.cmd.Wait() }()
	t.Cleanup(func() { p.stop(); p.dumpLogOnFailure() })
	eventually(t, 90*time.Second, "adapter /readyz", func() error { return p.ready() })
	return p
}

func (p *adapterProc) ready() error {
	select {
	case err := <-p.done:
		p.done <- err
		return fmt.Errorf("adapter exited: %v", err)
	default:
	}
	resp, err := http.Get("http://" + p.listen + "/readyz")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		return fmt.Errorf("/readyz answered %d", resp.StatusCode)
	}
	return nil
}

// stop sends SIGTERM and waits for a graceful exit.
func (p *adapterProc) stop() {
	if p.cmd.ProcessState != nil {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(40 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// kill ends the adapter at once, with no chance to settle anything.
func (p *adapterProc) kill() {
	_ = p.cmd.Process.Kill()
	<-p.done
}

func (p *adapterProc) dumpLogOnFailure() {
	p.log.Close()
	if !p.t.Failed() {
		return
	}
	b, _ := os.ReadFile(p.log.Name())
	lines := strings.Split(string(b), "\n")
	if len(lines) > 80 {
		lines = lines[len(lines)-80:]
	}
	p.t.Logf("adapter log (last lines of %s):\n%s", p.log.Name(), strings.Join(lines, "\n"))
}

// metric sums the samples of a metric whose labels contain every given
// `key="value"` pair.
func (p *adapterProc) metric(name string, labels ...string) float64 {
	p.t.Helper()
	resp, err := http.Get("http://" + p.listen + "/metrics")
	if err != nil {
		p.t.Fatalf("scrape metrics: %v", err)
	}
	defer resp.Body.Close()
	sum := 0.0
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, name+"{") && !strings.HasPrefix(line, name+" ") {
			continue
		}
		if !hasLabels(line, labels) {
			continue
		}
		f := strings.Fields(line)
		v, _ := strconv.ParseFloat(f[len(f)-1], 64)
		sum += v
	}
	return sum
}

func hasLabels(line string, labels []string) bool {
	for _, l := range labels {
		if !strings.Contains(line, l) {
			return false
		}
	}
	return true
}

// maestroWrites counts create, update and delete calls the adapter made.
// maestroReads counts Maestro read requests: gets and batch reads.
func (p *adapterProc) maestroReads() float64 {
	return p.metric("bundle_adapter_maestro_requests_total", `verb="get"`) +
		p.metric("bundle_adapter_maestro_requests_total", `verb="get_bundles"`)
}

func (p *adapterProc) maestroWrites() float64 {
	return p.metric("bundle_adapter_maestro_requests_total", `verb="create"`) +
		p.metric("bundle_adapter_maestro_requests_total", `verb="update"`) +
		p.metric("bundle_adapter_maestro_requests_total", `verb="delete"`)
}

// publish sends a Sentinel reconcile event for cluster id at generation.
func publish(t *testing.T, st *stack, topic, id string, generation int) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{
		"specversion": "1.0", "id": unique("ev-"), "type": "com.redhat.hyperfleet.cluster.reconcile",
		"source": "hyperfleet-sentinel", "datacontenttype": "application/json",
		"data": map[string]any{"id": id, "kind": "Cluster", "href": apiPrefix + id, "generation": generation},
	})
	publishRaw(t, st, topic, body)
}

func publishRaw(t *testing.T, st *stack, topic string, body []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := rabbitmq.Publish(ctx, st.rabbitURL, topic, "cluster.reconcile", body, nil); err != nil {
		t.Fatalf("publish: %v", err)
	}
}

func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// copyTree copies the named entries of src (files or folders) into dst.
func copyTree(t *testing.T, src, dst string, names ...string) {
	t.Helper()
	for _, n := range names {
		err := filepath.Walk(filepath.Join(src, n), func(path string, info os.FileInfo, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(src, path)
			if info.IsDir() {
				return os.MkdirAll(filepath.Join(dst, rel), 0o755)
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(dst, rel), b, 0o600)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// eventually polls cond every 200ms until it returns nil or timeout passes.
func eventually(t *testing.T, timeout time.Duration, what string, cond func() error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		err := cond()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s: %v", timeout, what, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// adapterName is the adapter (and RabbitMQ connection) name of a test.
func adapterName(topic string) string { return "adapter-" + topic }
