package stacktest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Files names the three config files of one adapter.
type Files struct {
	Dir                   string // the folder they were written to
	Adapter, Task, Broker string
}

// FilesIn names the files adapter-config.yaml, task-config.yaml and
// broker.yaml in dir.
func FilesIn(dir string) Files {
	return Files{Dir: dir, Adapter: filepath.Join(dir, "adapter-config.yaml"),
		Task: filepath.Join(dir, "task-config.yaml"), Broker: filepath.Join(dir, "broker.yaml")}
}

// CopyExample copies an example's task-config.yaml and bundles folder (the
// files its task config refers to) into dir, creating dir.
func CopyExample(example, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	bundles, err := filepath.Glob(filepath.Join(example, "bundles", "*"))
	if err != nil || len(bundles) == 0 {
		return fmt.Errorf("no bundles under %s/bundles", example)
	}
	if err := os.MkdirAll(filepath.Join(dir, "bundles"), 0o755); err != nil {
		return err
	}
	for _, src := range append(bundles, filepath.Join(example, "task-config.yaml")) {
		rel, _ := filepath.Rel(example, src)
		data, err := os.ReadFile(src)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, rel), data, 0o600); err != nil {
			return err
		}
	}
	return nil
}

// AdapterConfig is an adapter config (adapter-config.yaml) for a run:
// loopback HyperFleet API, a Maestro, a broker topic. Zero durations and
// counts are left to the adapter's defaults.
type AdapterConfig struct {
	Name     string // adapter.name
	LogLevel string // log.level (format is json); default info

	APIURL           string        // clients.hyperfleet_api.base_url
	APITimeout       time.Duration // clients.hyperfleet_api.timeout
	APIRetryAttempts int           // clients.hyperfleet_api.retry_attempts
	APIRetryBackoff  string        // clients.hyperfleet_api.retry_backoff

	SubscriptionID, Topic string // clients.broker

	MaestroGRPC, MaestroREST string        // clients.maestro grpc_server_address, http_server_address
	SourceID                 string        // clients.maestro.source_id
	MaestroTimeout           time.Duration // clients.maestro.timeout
	// MaestroMaxConcurrentReads, when positive, is
	// clients.maestro.max_concurrent_reads (else the default).
	MaestroMaxConcurrentReads int
	// MaestroAuth are YAML lines, indented four spaces, added under
	// clients.maestro to secure the connection (an auth block); empty:
	// "insecure: true".
	MaestroAuth string
	// MaestroViewMaxAge, when positive, writes the bundle view's key
	// (clients.maestro.view: {enabled: true, max_age}); MaestroViewOff
	// turns the view off (enabled: false). Neither: no key, the default
	// (on since issue 47).
	MaestroViewMaxAge time.Duration
	MaestroViewOff    bool

	// KubeConfigPath is clients.kubernetes.kube_config_path, for the
	// kubernetes transport. Set without any Maestro field, the config has
	// no clients.maestro at all (a kubernetes-only deployment).
	KubeConfigPath string
	// InCluster writes clients.kubernetes without a kubeconfig: the pod's
	// service account (the chart's RBAC). Without any Maestro field, the
	// config has no clients.maestro.
	InCluster bool
}

// YAML renders the config.
func (c AdapterConfig) YAML() string {
	var b strings.Builder
	fmt.Fprintf(&b, "adapter: {name: %q, version: \"0.1.0\"}\n", c.Name)
	fmt.Fprintf(&b, "log: {level: %s, format: json}\n", or(c.LogLevel, "info"))
	b.WriteString("clients:\n")
	fmt.Fprintf(&b, "  hyperfleet_api: {base_url: %q, version: v1%s%s%s}\n", c.APIURL,
		field("timeout", c.APITimeout), field("retry_attempts", c.APIRetryAttempts), field("retry_backoff", c.APIRetryBackoff))
	fmt.Fprintf(&b, "  broker: {subscription_id: %s, topic: %q}\n", c.SubscriptionID, c.Topic)
	if c.KubeConfigPath != "" {
		fmt.Fprintf(&b, "  kubernetes: {kube_config_path: %q}\n", c.KubeConfigPath)
	} else if c.InCluster {
		b.WriteString("  kubernetes: {api_version: v1}\n")
	}
	if (c.KubeConfigPath != "" || c.InCluster) && c.MaestroGRPC == "" && c.MaestroREST == "" && c.SourceID == "" && c.MaestroAuth == "" {
		return b.String()
	}
	fmt.Fprintf(&b, "  maestro:\n    grpc_server_address: %q\n    http_server_address: %q\n    source_id: %q\n",
		c.MaestroGRPC, c.MaestroREST, c.SourceID)
	if c.MaestroTimeout > 0 {
		fmt.Fprintf(&b, "    timeout: %s\n", c.MaestroTimeout)
	}
	if c.MaestroMaxConcurrentReads > 0 {
		fmt.Fprintf(&b, "    max_concurrent_reads: %d\n", c.MaestroMaxConcurrentReads)
	}
	switch {
	case c.MaestroViewOff:
		b.WriteString("    view: {enabled: false}\n")
	case c.MaestroViewMaxAge > 0:
		fmt.Fprintf(&b, "    view: {enabled: true, max_age: %s}\n", c.MaestroViewMaxAge)
	}
	b.WriteString(or(c.MaestroAuth, "    insecure: true\n"))
	return b.String()
}

// RabbitMQConfig is a broker config (broker.yaml) for RabbitMQ with a topic
// exchange. Zero durations and counts are left to the adapter's defaults.
type RabbitMQConfig struct {
	URL, Exchange string
	Prefetch      int // broker.rabbitmq.prefetch_count

	MaxDeliveries          int           // broker.delivery.max_deliveries
	MinBackoff, MaxBackoff time.Duration // broker.delivery

	Parallelism     int           // subscriber.parallelism
	ShutdownTimeout time.Duration // subscriber.shutdown_timeout
}

// YAML renders the config.
func (c RabbitMQConfig) YAML() string {
	return fmt.Sprintf(`broker:
  type: rabbitmq
  rabbitmq: {url: %q, exchange: %q, exchange_type: topic%s}
  delivery: {%s}
subscriber: {%s}
`, c.URL, c.Exchange, field("prefetch_count", c.Prefetch),
		fields(field("max_deliveries", c.MaxDeliveries), field("min_backoff", c.MinBackoff), field("max_backoff", c.MaxBackoff)),
		fields(field("parallelism", c.Parallelism), field("shutdown_timeout", c.ShutdownTimeout)))
}

// field is ", key: value" for a non-zero value, "" for a zero one.
func field[T comparable](key string, v T) string {
	var zero T
	if v == zero {
		return ""
	}
	return fmt.Sprintf(", %s: %v", key, v)
}

// fields joins field results into a flow mapping's content.
func fields(fs ...string) string { return strings.TrimPrefix(strings.Join(fs, ""), ", ") }

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// WriteFiles writes the adapter and broker configs to f.Adapter and
// f.Broker (the task config is left as it is).
func WriteFiles(f Files, adapter, broker string) error {
	for path, content := range map[string]string{f.Adapter: adapter, f.Broker: broker} {
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			return err
		}
	}
	return nil
}

// WriteFleetConfigs writes the configs of a run that spreads clusters over
// many consumers into dir: the example's task config and bundles
// (CopyExample) with each cluster placed on the consumer the HyperFleet API
// names for it, cluster1 when it names none (ConsumerFromCluster), and the
// adapter and broker configs (WriteFiles).
func WriteFleetConfigs(example, dir string, adapter AdapterConfig, broker RabbitMQConfig) (Files, error) {
	f := FilesIn(dir)
	if err := CopyExample(example, dir); err != nil {
		return f, err
	}
	data, err := os.ReadFile(f.Task)
	if err != nil {
		return f, err
	}
	task, err := ConsumerFromCluster(data, "cluster1")
	if err != nil {
		return f, err
	}
	if err := os.WriteFile(f.Task, task, 0o600); err != nil {
		return f, err
	}
	return f, WriteFiles(f, adapter.YAML(), broker.YAML())
}

// ConsumerFromCluster rewrites a task config (YAML) so that each cluster's
// bundles go to the consumer the HyperFleet API names for the cluster
// (cluster.consumer, def when it names none), instead of the one consumer
// of the example's `consumer` param (env.MAESTRO_CONSUMER). The new param
// goes last, after the cluster param it reads. It fails when the task
// config has no consumer param.
func ConsumerFromCluster(task []byte, def string) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(task, &doc); err != nil {
		return nil, err
	}
	if len(doc.Content) == 0 {
		return nil, fmt.Errorf("empty task config")
	}
	params := mapValue(doc.Content[0], "params")
	if params == nil || params.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("no params list")
	}
	kept := params.Content[:0]
	found := false
	for _, p := range params.Content {
		if n := mapValue(p, "name"); n != nil && n.Value == "consumer" {
			found = true
			continue
		}
		kept = append(kept, p)
	}
	if !found {
		return nil, fmt.Errorf("no consumer param to replace")
	}
	param := fmt.Sprintf(`{name: consumer, source: {expression: 'cluster.?consumer.orValue(%q)'}, type: string}`, def)
	var repl yaml.Node
	if err := yaml.Unmarshal([]byte(param), &repl); err != nil {
		return nil, err
	}
	params.Content = append(kept, repl.Content[0])
	var out bytes.Buffer
	enc := yaml.NewEncoder(&out)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

func mapValue(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// RewriteYAML reads the YAML mapping in src, sets each dotted path of
// values (creating mappings on the way), writes the result to dst and
// returns it. Comments and key order are not kept.
func RewriteYAML(src, dst string, values map[string]any) (map[string]any, error) {
	b, err := os.ReadFile(src)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := yaml.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", src, err)
	}
	if m == nil {
		m = map[string]any{}
	}
	for path, v := range values {
		setPath(m, path, v)
	}
	out, err := yaml.Marshal(m)
	if err != nil {
		return nil, err
	}
	return m, os.WriteFile(dst, out, 0o600)
}

// setPath puts v at a dotted path, creating maps on the way.
func setPath(m map[string]any, path string, v any) {
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

// Lookup is the value at a dotted path of a decoded YAML mapping, nil when
// absent.
func Lookup(m map[string]any, path string) any {
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
