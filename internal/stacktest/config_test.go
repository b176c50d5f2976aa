package stacktest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bundle-adapter/bundle-adapter/config"
)

const example = "../../config/examples/onprem"

// The configs the harness writes, with the example's task config and
// bundles beside them, load as a deployment's would.
func TestConfigsLoad(t *testing.T) {
	dir := t.TempDir()
	if err := CopyExample(example, dir); err != nil {
		t.Fatal(err)
	}
	f := FilesIn(dir)
	adapter := AdapterConfig{Name: "a", LogLevel: "debug", APIURL: "http://127.0.0.1:1", APITimeout: 5 * time.Second,
		APIRetryAttempts: 2, APIRetryBackoff: "exponential", SubscriptionID: "e2e", Topic: "t1",
		MaestroGRPC: "127.0.0.1:2", MaestroREST: "http://127.0.0.1:3", SourceID: "s1", MaestroTimeout: 20 * time.Second,
		MaestroViewMaxAge: 90 * time.Second, MaestroMaxConcurrentReads: 4}
	broker := RabbitMQConfig{URL: "amqp://guest:guest@127.0.0.1:5672/", Exchange: "t1", Prefetch: 10,
		MaxDeliveries: 30, MinBackoff: time.Second, MaxBackoff: 10 * time.Second, Parallelism: 4, ShutdownTimeout: 20 * time.Second}
	if err := WriteFiles(f, adapter.YAML(), broker.YAML()); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(config.Files{Adapter: f.Adapter, Task: f.Task, Broker: f.Broker}, nil)
	if err != nil {
		t.Fatalf("load:\n%s\n%s\n%v", adapter.YAML(), broker.YAML(), err)
	}
	api, m := cfg.Adapter.Clients.HyperfleetAPI, cfg.Adapter.Clients.Maestro
	if api.BaseURL.Reveal() != adapter.APIURL || api.Timeout.D() != 5*time.Second || api.RetryAttempts != 2 ||
		m.SourceID != "s1" || m.Timeout.D() != 20*time.Second || !m.Insecure ||
		!m.View.Enabled || m.View.MaxAge.D() != 90*time.Second || m.MaxConcurrentReads != 4 {
		t.Errorf("adapter config %+v %+v", api, m)
	}
	for _, want := range []string{"prefetch_count: 10", "max_deliveries: 30", "min_backoff: 1s", "max_backoff: 10s",
		"parallelism: 4", "shutdown_timeout: 20s"} {
		if !strings.Contains(broker.YAML(), want) {
			t.Errorf("broker config lacks %q:\n%s", want, broker.YAML())
		}
	}
	// MaestroViewOff turns the view off by name (the default is on).
	adapter.MaestroViewMaxAge, adapter.MaestroViewOff = 0, true
	if err := WriteFiles(f, adapter.YAML(), broker.YAML()); err != nil {
		t.Fatal(err)
	}
	if cfg, err := config.Load(config.Files{Adapter: f.Adapter, Task: f.Task, Broker: f.Broker}, nil); err != nil {
		t.Errorf("MaestroViewOff: load: %v", err)
	} else if cfg.Adapter.Clients.Maestro.View.Enabled {
		t.Errorf("MaestroViewOff: view %+v, want off", cfg.Adapter.Clients.Maestro.View)
	}
	// Zero values are left out, an auth block replaces insecure.
	bare := AdapterConfig{Name: "a", MaestroAuth: "    auth: {type: tls}\n"}.YAML()
	if strings.Contains(bare, "timeout") || strings.Contains(bare, "view") || strings.Contains(bare, "insecure") || strings.Contains(bare, "max_concurrent_reads") || !strings.Contains(bare, "auth: {type: tls}") {
		t.Errorf("bare config:\n%s", bare)
	}
	kubeOnly := AdapterConfig{Name: "a", KubeConfigPath: "/tmp/kc"}.YAML()
	if strings.Contains(kubeOnly, "maestro") || !strings.Contains(kubeOnly, `kubernetes: {kube_config_path: "/tmp/kc"}`) {
		t.Errorf("kubernetes-only config:\n%s", kubeOnly)
	}
	inCluster := AdapterConfig{Name: "a", InCluster: true}.YAML()
	if strings.Contains(inCluster, "maestro") || strings.Contains(inCluster, "kube_config_path") || !strings.Contains(inCluster, "kubernetes: {") {
		t.Errorf("in-cluster kubernetes-only config:\n%s", inCluster)
	}
	both := AdapterConfig{Name: "a", KubeConfigPath: "/tmp/kc", MaestroGRPC: "g"}.YAML()
	if !strings.Contains(both, "maestro:") || !strings.Contains(both, "kube_config_path") {
		t.Errorf("config with both transports:\n%s", both)
	}
	if got := (RabbitMQConfig{URL: "u", Exchange: "x"}).YAML(); !strings.Contains(got, "delivery: {}") {
		t.Errorf("bare broker config:\n%s", got)
	}
}

// ConsumerFromCluster replaces the consumer param by one read from the
// cluster, after the params it reads; the task config still loads.
func TestConsumerFromCluster(t *testing.T) {
	dir := t.TempDir()
	if err := CopyExample(example, dir); err != nil {
		t.Fatal(err)
	}
	path := FilesIn(dir).Task
	data, _ := os.ReadFile(path)
	out, err := ConsumerFromCluster(data, "cluster1")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, out, 0o600); err != nil {
		t.Fatal(err)
	}
	task, err := config.LoadTaskConfig(path)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	last := task.Params[len(task.Params)-1]
	if last.Name != "consumer" || last.Source.Expression == nil || !strings.Contains(string(out), `cluster.?consumer.orValue("cluster1")`) {
		t.Errorf("consumer param not replaced: %+v", last)
	}
	for _, p := range task.Params[:len(task.Params)-1] {
		if p.Name == "consumer" {
			t.Error("the example's consumer param is still there")
		}
	}
	if _, err := ConsumerFromCluster([]byte("params: []\n"), ""); err == nil {
		t.Error("a task config without a consumer param was accepted")
	}
}

func TestRewriteYAML(t *testing.T) {
	dir := t.TempDir()
	dst := filepath.Join(dir, "adapter-config.yaml")
	m, err := RewriteYAML(filepath.Join(example, "adapter-config.yaml"), dst, map[string]any{
		"clients.broker.topic": "demo", "log.format": "text", "new.key": 1})
	if err != nil {
		t.Fatal(err)
	}
	if Lookup(m, "clients.broker.topic") != "demo" || Lookup(m, "clients.broker.subscription_id") != "onprem-bundles" ||
		Lookup(m, "new.key") != 1 || Lookup(m, "no.such") != nil {
		t.Errorf("rewritten %v", m)
	}
	again, err := RewriteYAML(dst, dst, nil)
	if err != nil || Lookup(again, "clients.broker.topic") != "demo" || Lookup(again, "log.format") != "text" {
		t.Errorf("written file reads back as %v (%v)", again, err)
	}
}
