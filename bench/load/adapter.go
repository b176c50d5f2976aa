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
)

// adapterUnderTest is the adapter the harness drives: its /metrics and the
// process whose memory and CPU are measured.
type adapterUnderTest interface {
	metricsURL() string
	pid() int
	stop() error
}

// binaryAdapter is `bundle-adapter serve` as a child process.
type binaryAdapter struct {
	cmd    *exec.Cmd
	listen string
	done   chan error
	log    *os.File
}

func startBinary(ctx context.Context, bin string, f adapterFiles) (*binaryAdapter, error) {
	listen, err := freeAddr()
	if err != nil {
		return nil, err
	}
	logFile, err := os.Create(filepath.Join(f.dir, "adapter.log"))
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "serve", "--config", f.adapter, "--task-config", f.task,
		"--broker-config", f.broker, "--listen", listen)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.Env = os.Environ()
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, err
	}
	a := &binaryAdapter{cmd: cmd, listen: listen, done: make(chan error, 1), log: logFile}
	go func() { a.done <- cmd.Wait() }()
	if err := waitReady(ctx, "http://"+listen+"/readyz", 60*time.Second, a.done); err != nil {
		_ = a.stop()
		return nil, fmt.Errorf("adapter not ready (log %s): %w", logFile.Name(), err)
	}
	return a, nil
}

func (a *binaryAdapter) metricsURL() string { return "http://" + a.listen + "/metrics" }
func (a *binaryAdapter) pid() int           { return a.cmd.Process.Pid }

// stop sends SIGTERM and waits for a graceful exit (SIGKILL after 30s).
func (a *binaryAdapter) stop() error {
	defer a.log.Close()
	_ = a.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-a.done:
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return fmt.Errorf("adapter exited: %w (log %s)", err, a.log.Name())
		}
		return nil
	case <-time.After(30 * time.Second):
		_ = a.cmd.Process.Kill()
		<-a.done
		return fmt.Errorf("adapter ignored SIGTERM for 30s (log %s)", a.log.Name())
	}
}

// waitReady polls url until it answers 200, the process exits or timeout.
func waitReady(ctx context.Context, url string, timeout time.Duration, exited <-chan error) error {
	deadline := time.Now().Add(timeout)
	client := &http.Client{Timeout: 2 * time.Second}
	var last error
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			return fmt.Errorf("exited: %v", err)
		case <-ctx.Done():
			return ctx.Err()
		default:
		}
		resp, err := client.Get(url)
		if err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			err = fmt.Errorf("%s answered %d: %s", url, resp.StatusCode, strings.TrimSpace(string(body)))
		}
		last = err
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("timed out after %s: %v", timeout, last)
}

func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// scrape is one read of a Prometheus text exposition.
type scrape map[string][]sample

type sample struct {
	labels string
	value  float64
}

func scrapeMetrics(url string) (scrape, error) {
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s answered %d", url, resp.StatusCode)
	}
	s := scrape{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		name, rest := line, ""
		if i := strings.IndexAny(line, "{ "); i >= 0 {
			name, rest = line[:i], line[i:]
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			continue
		}
		v, err := strconv.ParseFloat(f[len(f)-1], 64)
		if err != nil {
			continue
		}
		labels := ""
		if strings.HasPrefix(rest, "{") {
			labels = rest[:strings.LastIndex(rest, "}")+1]
		}
		s[name] = append(s[name], sample{labels: labels, value: v})
	}
	return s, sc.Err()
}

// sum adds the samples of name whose labels contain every `k="v"` given.
func (s scrape) sum(name string, labels ...string) float64 {
	total := 0.0
next:
	for _, smp := range s[name] {
		for _, l := range labels {
			if !strings.Contains(smp.labels, l) {
				continue next
			}
		}
		total += smp.value
	}
	return total
}

const maestroRequests = "bundle_adapter_maestro_requests_total"

// maestroReads counts read requests: single gets and batch reads (one
// request for every bundle of an event).
func (s scrape) maestroReads() float64 {
	return s.sum(maestroRequests, `verb="get"`) + s.sum(maestroRequests, `verb="get_bundles"`)
}
func (s scrape) maestroWrites() float64 {
	return s.sum(maestroRequests, `verb="create"`) + s.sum(maestroRequests, `verb="update"`) +
		s.sum(maestroRequests, `verb="delete"`)
}
func (s scrape) creates() float64 { return s.sum(maestroRequests, `verb="create"`, `code="ok"`) }
func (s scrape) events() float64  { return s.sum("bundle_adapter_events_total") }
