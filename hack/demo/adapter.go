package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"gopkg.in/yaml.v3"
)

// Names the demo gives the adapter in Maestro and RabbitMQ.
const (
	demoSourceID = "bundle-adapter-demo" // Maestro source id
	demoTopic    = "bundle-adapter-demo" // clients.broker.topic, also the exchange
)

// demoConfig is where the adapter's config files are.
type demoConfig struct {
	adapter, task, broker string
	queue                 string // the adapter's RabbitMQ queue
}

// writeConfigs writes the onprem example's adapter and broker configs into
// dir with the endpoints of the demo (fake API, the stack's Maestro, a demo
// exchange); the task config and bundles are the example's own files.
func writeConfigs(o options, dir, apiURL string) (demoConfig, error) {
	ac, err := readYAML(filepath.Join(o.example, "adapter-config.yaml"))
	if err != nil {
		return demoConfig{}, err
	}
	set(ac, "log.format", "text")
	set(ac, "clients.hyperfleet_api.base_url", apiURL)
	set(ac, "clients.broker.topic", demoTopic)
	set(ac, "clients.maestro.grpc_server_address", o.grpcAddr)
	set(ac, "clients.maestro.http_server_address", o.restURL)
	set(ac, "clients.maestro.source_id", demoSourceID)
	bc, err := readYAML(filepath.Join(o.example, "broker.yaml"))
	if err != nil {
		return demoConfig{}, err
	}
	set(bc, "broker.rabbitmq.url", o.rabbitURL)
	set(bc, "broker.rabbitmq.exchange", demoTopic)
	set(bc, "subscriber.shutdown_timeout", "10s")
	c := demoConfig{
		adapter: filepath.Join(dir, "adapter-config.yaml"),
		task:    filepath.Join(o.example, "task-config.yaml"),
		broker:  filepath.Join(dir, "broker.yaml"),
	}
	if err := writeYAML(c.adapter, ac); err != nil {
		return c, err
	}
	if err := writeYAML(c.broker, bc); err != nil {
		return c, err
	}
	sub, _ := get(ac, "clients.broker.subscription_id").(string)
	c.queue = demoTopic + "-" + sub
	return c, nil
}

func readYAML(path string) (map[string]any, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := yaml.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

func writeYAML(path string, m map[string]any) error {
	b, err := yaml.Marshal(m)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o600)
}

// set puts v at a dotted path, creating maps on the way.
func set(m map[string]any, path string, v any) {
	keys := strings.Split(path, ".")
	for _, k := range keys[:len(keys)-1] {
		next, ok := m[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[k] = next
		}
		m = next
	}
	m[keys[len(keys)-1]] = v
}

func get(m map[string]any, path string) any {
	keys := strings.Split(path, ".")
	for _, k := range keys[:len(keys)-1] {
		next, ok := m[k].(map[string]any)
		if !ok {
			return nil
		}
		m = next
	}
	return m[keys[len(keys)-1]]
}

// adapterProc is the running `bundle-adapter serve`.
type adapterProc struct {
	cmd     *exec.Cmd
	listen  string
	logPath string
	done    chan struct{} // closed when the process exited
	err     error         // its exit status, once done is closed
	writes  map[string]float64
}

// startAdapter starts serve in its own process group, so the terminal's
// SIGINT reaches only the demo, which stops the adapter with SIGTERM.
func startAdapter(o options, c demoConfig, dir string) (*adapterProc, error) {
	listen, err := freeAddr()
	if err != nil {
		return nil, err
	}
	p := &adapterProc{listen: listen, logPath: filepath.Join(dir, "adapter.log"), done: make(chan struct{})}
	logFile, err := os.Create(p.logPath)
	if err != nil {
		return nil, err
	}
	p.cmd = exec.Command(o.bin, "serve", "--config", c.adapter, "--task-config", c.task,
		"--broker-config", c.broker, "--listen", listen)
	p.cmd.Env = append(os.Environ(), "MAESTRO_CONSUMER="+o.consumer)
	p.cmd.Stdout, p.cmd.Stderr = logFile, logFile
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := p.cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("start %s: %w", o.bin, err)
	}
	go func() {
		p.err = p.cmd.Wait()
		logFile.Close()
		close(p.done)
	}()
	return p, nil
}

func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// waitReady polls /readyz until it answers 200.
func (p *adapterProc) waitReady(ctx context.Context, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	last := "no answer yet"
	for {
		select {
		case <-ctx.Done():
			return errInterrupted
		case <-p.done:
			return fmt.Errorf("the adapter exited: %v", p.err)
		case <-time.After(200 * time.Millisecond):
		}
		code, body, err := httpGet("http://" + p.listen + "/readyz")
		switch {
		case err != nil:
			last = err.Error()
		case code == http.StatusOK:
			return nil
		default:
			last = fmt.Sprintf("%d %s", code, strings.Join(strings.Fields(body), " "))
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the adapter was not ready within %v: /readyz: %s", timeout, last)
		}
	}
}

// writesSinceLast returns the Maestro writes (create, update, delete calls)
// the adapter made since the previous call, by verb.
func (p *adapterProc) writesSinceLast() map[string]int {
	now, err := p.maestroRequests()
	if err != nil {
		return nil
	}
	delta := map[string]int{}
	for verb, n := range now {
		if verb == "get" || verb == "get_bundles" { // reads
			continue
		}
		if d := int(n - p.writes[verb]); d > 0 {
			delta[verb] = d
		}
	}
	p.writes = now
	return delta
}

// maestroRequests sums bundle_adapter_maestro_requests_total by verb.
func (p *adapterProc) maestroRequests() (map[string]float64, error) {
	code, body, err := httpGet("http://" + p.listen + "/metrics")
	if err != nil || code != http.StatusOK {
		return nil, fmt.Errorf("metrics: %d %v", code, err)
	}
	out := map[string]float64{}
	sc := bufio.NewScanner(strings.NewReader(body))
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "bundle_adapter_maestro_requests_total{") {
			continue
		}
		_, rest, _ := strings.Cut(line, `verb="`)
		verb, _, _ := strings.Cut(rest, `"`)
		f := strings.Fields(line)
		v, _ := strconv.ParseFloat(f[len(f)-1], 64)
		out[verb] += v
	}
	return out, nil
}

// stop sends SIGTERM and waits for the adapter to finish its in-flight
// events; after timeout it kills it.
func (p *adapterProc) stop(timeout time.Duration) (time.Duration, error) {
	start := time.Now()
	select {
	case <-p.done:
		return 0, p.err
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
		return time.Since(start), p.err
	case <-time.After(timeout):
		_ = p.cmd.Process.Kill()
		<-p.done
		return time.Since(start), errors.New("did not stop within " + timeout.String() + "; killed")
	}
}

// tail returns the last n lines of the adapter's log.
func (p *adapterProc) tail(n int) string {
	b, err := os.ReadFile(p.logPath)
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func httpGet(url string) (int, string, error) {
	c := &http.Client{Timeout: 3 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}
