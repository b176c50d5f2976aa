package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/bundle-adapter/bundle-adapter/internal/stacktest"
)

// The anchor's example files (charts/examples/maestro), as its chart mounts
// them: the adapter config, the task config, and the ManifestWork template
// the task config refers to by the absolute path anchorManifestRef.
const (
	anchorAdapterConfig = "adapter-config.yaml"
	anchorTaskConfig    = "adapter-task-config.yaml"
	anchorManifest      = "adapter-task-resource-manifestwork.yaml"
	anchorManifestRef   = "/etc/adapter/manifestwork.yaml"
)

// contender is one adapter run on the anchor's example config.
type contender struct {
	name, bin           string
	topic, subscription string
	files               stacktest.Files
	proc                *stacktest.Adapter
}

// queue is the RabbitMQ queue hyperfleet-broker (and bundle-adapter, which
// reads its broker files) declares for the subscription: <topic>-<id>.
func (c *contender) queue() string { return c.topic + "-" + c.subscription }

// writeFiles copies the example's files into dir, the adapter config and
// the ManifestWork template unchanged; in the task config only the
// template's path changes, from where the chart mounts it to where it was
// copied (nothing else in it does), and writes a RabbitMQ broker file.
func (c *contender) writeFiles(example, dir, rabbitURL string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	c.files = stacktest.Files{Dir: dir, Adapter: filepath.Join(dir, anchorAdapterConfig),
		Task: filepath.Join(dir, anchorTaskConfig), Broker: filepath.Join(dir, "broker.yaml")}
	manifest := filepath.Join(dir, anchorManifest)
	for _, name := range []string{anchorAdapterConfig, anchorManifest} {
		if err := copyFile(filepath.Join(example, name), filepath.Join(dir, name)); err != nil {
			return err
		}
	}
	task, err := os.ReadFile(filepath.Join(example, anchorTaskConfig))
	if err != nil {
		return err
	}
	if n := strings.Count(string(task), anchorManifestRef); n != 1 {
		return fmt.Errorf("%s: expected the manifest ref %s once, found it %d times", anchorTaskConfig, anchorManifestRef, n)
	}
	task = []byte(strings.Replace(string(task), anchorManifestRef, manifest, 1))
	if err := os.WriteFile(c.files.Task, task, 0o600); err != nil {
		return err
	}
	return os.WriteFile(c.files.Broker, []byte(anchorBrokerYAML(rabbitURL)), 0o600)
}

// anchorBrokerYAML is a hyperfleet-broker RabbitMQ broker file naming only
// the URL: each adapter runs on its own defaults (both read this format; a
// fanout exchange, the anchor's one event at a time, bundle-adapter's
// parallelism), as a team that drops its files in would run them.
func anchorBrokerYAML(rabbitURL string) string {
	return fmt.Sprintf("broker:\n  type: rabbitmq\n  rabbitmq:\n    url: %q\n", rabbitURL)
}

func copyFile(src, dst string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, data, 0o600)
}

// start runs `bin serve --config ... --task-config ...` with the addresses
// of the run in the environment variables both adapters read, and waits
// until its queue has a consumer.
func (c *contender) start(ctx context.Context, o *sbsOptions, apiURL, maestroREST string) error {
	env := []string{
		"BROKER_CONFIG_FILE=" + c.files.Broker,
		"HYPERFLEET_API_BASE_URL=" + apiURL,
		"HYPERFLEET_MAESTRO_GRPC_SERVER_ADDRESS=" + o.maestroGRPC,
		"HYPERFLEET_MAESTRO_HTTP_SERVER_ADDRESS=" + maestroREST,
		"HYPERFLEET_BROKER_TOPIC=" + c.topic,
		"HYPERFLEET_BROKER_SUBSCRIPTION_ID=" + c.subscription,
		// The anchor's binary traces unless told not to, and with no
		// collector it writes every span to stdout; its chart sets this
		// variable always. Off for both, as a chart with tracing off runs.
		"HYPERFLEET_TRACING_ENABLED=false",
	}
	p, err := stacktest.StartAdapter(stacktest.AdapterOptions{Bin: c.bin, Files: c.files, Env: env,
		Argv:    []string{"serve", "--config", c.files.Adapter, "--task-config", c.files.Task},
		LogPath: filepath.Join(c.files.Dir, c.name+".log")})
	if err != nil {
		return err
	}
	c.proc = p
	if err := stacktest.WaitQueueConsumed(o.rabbitURL, c.queue(), 60*time.Second, p.Done()); err != nil {
		_ = c.stop()
		return fmt.Errorf("%s not consuming (log %s): %w\n%s", c.name, p.LogPath(), err, p.Tail(20))
	}
	return ctx.Err()
}

// stop sends SIGTERM and waits up to 30 s.
func (c *contender) stop() error {
	if c.proc == nil {
		return nil
	}
	_, err := c.proc.Stop(30 * time.Second)
	c.proc = nil
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return nil // a non-zero exit on SIGTERM is the contender's own business
	}
	return err
}

// countingProxy is a reverse proxy in front of Maestro's REST API that
// counts the requests through it by method: the same count for both
// contenders, whatever metrics each exposes.
type countingProxy struct {
	url string
	srv *http.Server
	mu  sync.Mutex
	n   map[string]int64
}

func startCountingProxy(target string) (*countingProxy, error) {
	u, err := url.Parse(target)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &countingProxy{url: "http://" + ln.Addr().String(), n: map[string]int64{}}
	rp := httputil.NewSingleHostReverseProxy(u)
	p.srv = &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.n[r.Method]++
		p.mu.Unlock()
		rp.ServeHTTP(w, r)
	})}
	go func() { _ = p.srv.Serve(ln) }()
	return p, nil
}

// counts is a copy of the counts so far.
func (p *countingProxy) counts() map[string]int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make(map[string]int64, len(p.n))
	for m, n := range p.n {
		out[m] = n
	}
	return out
}

func (p *countingProxy) close() { _ = p.srv.Close() }

// startAnchorAPI serves the clusters 0..n-1 at generation 1 in the shape
// the anchor's example reads (name, created_time, status.conditions: no
// Reconciled condition, so its precondition lets every event through) and
// completes events by their status PUTs, judged by parseAnchorStatus.
func startAnchorAPI(n int) (*recordingAPI, error) {
	a := &recordingAPI{inflight: map[string]*inflight{}, parse: parseAnchorStatus}
	api, err := stacktest.StartAPI(stacktest.APIOptions{OnStatus: a.onStatus})
	if err != nil {
		return nil, err
	}
	a.API = api
	created := time.Now().UTC().Format(time.RFC3339)
	for i := range n {
		id := clusterID(i)
		a.SetCluster(id, map[string]any{
			"id": id, "kind": "Cluster", "name": "sbs-" + id, "generation": 1, "created_time": created,
			"href": stacktest.ClustersPath + id, "spec": map[string]any{},
			"status": map[string]any{"conditions": []any{}},
		})
	}
	return a, nil
}
