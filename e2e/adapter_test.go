package e2e

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bundle-adapter/bundle-adapter/broker/rabbitmq"
	"github.com/bundle-adapter/bundle-adapter/internal/stacktest"
)

// adapterProc is one running `bundle-adapter serve` with config files of its
// own: the onprem example's task config against the test's API and broker
// names.
type adapterProc struct {
	*stacktest.Adapter
	t *testing.T
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
	if err := stacktest.CopyExample("../config/examples/onprem", dir); err != nil {
		t.Fatal(err)
	}
	adapterCfg := adapterConfig(api, topic, st.grpcAddr, st.restURL, "e2e-"+topic, "")
	if err := stacktest.WriteFiles(stacktest.FilesIn(dir), adapterCfg, brokerYAML); err != nil {
		t.Fatal(err)
	}
	return dir
}

// adapterConfig is an adapter config for the test's API and a Maestro;
// auth holds the indented lines that secure the Maestro connection ("":
// insecure).
func adapterConfig(api *hyperfleetAPI, topic, grpcAddr, restURL, source, auth string) string {
	return stacktest.AdapterConfig{
		Name: adapterName(topic), LogLevel: "debug",
		APIURL: api.URL, APITimeout: 5 * time.Second, APIRetryAttempts: 2,
		SubscriptionID: "e2e", Topic: topic,
		MaestroGRPC: grpcAddr, MaestroREST: restURL, SourceID: source, MaestroTimeout: 10 * time.Second,
		MaestroAuth: auth,
	}.YAML()
}

func rabbitBroker(st *stack, topic string) string {
	return stacktest.RabbitMQConfig{
		URL: st.rabbitURL, Exchange: topic, Prefetch: 10,
		MaxDeliveries: 30, MinBackoff: time.Second, MaxBackoff: 10 * time.Second,
		Parallelism: 4, ShutdownTimeout: 20 * time.Second,
	}.YAML()
}

// startAdapter starts serve on dir and waits until /readyz answers 200. It
// is stopped (SIGTERM) when the test ends, and its log shown if it failed.
func startAdapter(t *testing.T, st *stack, dir, topic string) *adapterProc {
	t.Helper()
	return startAdapterUntil(t, st, dir, topic, "")
}

// startAdapterUntil is startAdapter; with notReady set it waits instead
// until /readyz answers an error that contains notReady.
func startAdapterUntil(t *testing.T, st *stack, dir, topic, notReady string) *adapterProc {
	t.Helper()
	a, err := stacktest.StartAdapter(stacktest.AdapterOptions{
		Bin: adapterBin, Files: stacktest.FilesIn(dir),
		Env:     []string{"MAESTRO_CONSUMER=" + st.consumer, "VALIDATOR_IMAGE=busybox:1.36"},
		LogPath: filepath.Join(dir, fmt.Sprintf("adapter-%d.log", time.Now().UnixNano())),
	})
	if err != nil {
		t.Fatal(err)
	}
	p := &adapterProc{Adapter: a, t: t}
	t.Cleanup(func() { p.stop(); p.dumpLogOnFailure() })
	if notReady == "" {
		eventually(t, 90*time.Second, "adapter /readyz", p.Ready)
		return p
	}
	eventually(t, 90*time.Second, "adapter /readyz saying "+notReady, func() error {
		if err := p.Ready(); err == nil || !strings.Contains(err.Error(), notReady) {
			return fmt.Errorf("/readyz: %v", err)
		}
		return nil
	})
	return p
}

// stop sends SIGTERM and waits for a graceful exit (killed after 40s).
func (p *adapterProc) stop() { _, _ = p.Stop(40 * time.Second) }

// kill ends the adapter at once, with no chance to settle anything.
func (p *adapterProc) kill() { p.Kill() }

func (p *adapterProc) dumpLogOnFailure() {
	if !p.t.Failed() {
		return
	}
	p.t.Logf("adapter log (last lines of %s):\n%s", p.LogPath(), p.Tail(80))
}

// scrape reads the adapter's metrics, failing the test when it cannot.
func (p *adapterProc) scrape() stacktest.Metrics {
	p.t.Helper()
	m, err := p.Metrics()
	if err != nil {
		p.t.Fatalf("scrape metrics: %v", err)
	}
	return m
}

// metric sums the samples of a metric whose labels contain every given
// `key="value"` pair.
func (p *adapterProc) metric(name string, labels ...string) float64 {
	p.t.Helper()
	return p.scrape().Sum(name, labels...)
}

// maestroReads counts Maestro read requests: gets and batch reads.
func (p *adapterProc) maestroReads() float64 { return p.scrape().MaestroReads() }

// maestroWrites counts create, update and delete calls the adapter made.
func (p *adapterProc) maestroWrites() float64 { return p.scrape().MaestroWrites() }

// reconcileEvent is a Sentinel reconcile event for cluster id at generation.
func reconcileEvent(id string, generation int) []byte {
	return stacktest.Event{ID: unique("ev-"), ClusterID: id, Generation: generation}.JSON()
}

// publish sends a Sentinel reconcile event for cluster id at generation.
func publish(t *testing.T, st *stack, topic, id string, generation int) {
	t.Helper()
	publishRaw(t, st, topic, reconcileEvent(id, generation))
}

func publishRaw(t *testing.T, st *stack, topic string, body []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := rabbitmq.Publish(ctx, st.rabbitURL, topic, "cluster.reconcile", body, nil); err != nil {
		t.Fatalf("publish: %v", err)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// eventually polls cond every 200ms until it returns nil or timeout passes.
func eventually(t *testing.T, timeout time.Duration, what string, cond func() error) {
	t.Helper()
	if err := until(timeout, cond); err != nil {
		t.Fatalf("timed out after %v waiting for %s: %v", timeout, what, err)
	}
}

// until polls cond every 200ms until it returns nil or timeout passes, and
// returns its last error.
func until(timeout time.Duration, cond func() error) error {
	deadline := time.Now().Add(timeout)
	for {
		err := cond()
		if err == nil || time.Now().After(deadline) {
			return err
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// adapterName is the adapter (and RabbitMQ connection) name of a test.
func adapterName(topic string) string { return "adapter-" + topic }
