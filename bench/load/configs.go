package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"gopkg.in/yaml.v3"
)

// adapterFiles are the three config files of the adapter under test.
type adapterFiles struct {
	dir, adapter, task, broker string
}

// consumerParam places a cluster on the consumer the HyperFleet API names
// for it. It replaces the example's env.MAESTRO_CONSUMER (one consumer for
// every cluster), so the bundles spread over several consumers and agents.
const consumerParam = `{name: consumer, source: {expression: 'cluster.?consumer.orValue("cluster1")'}, type: string}`

// writeConfigs writes the example's task config (with consumerParam) and
// bundles, and an adapter and broker config for this run, into dir.
func writeConfigs(o *options, dir, apiURL, sourceID, topic string) (adapterFiles, error) {
	f := adapterFiles{dir: dir, adapter: filepath.Join(dir, "adapter-config.yaml"),
		task: filepath.Join(dir, "task-config.yaml"), broker: filepath.Join(dir, "broker.yaml")}
	if err := os.MkdirAll(filepath.Join(dir, "bundles"), 0o755); err != nil {
		return f, err
	}
	task, err := benchTaskConfig(filepath.Join(o.example, "task-config.yaml"))
	if err != nil {
		return f, err
	}
	bundles, err := filepath.Glob(filepath.Join(o.example, "bundles", "*.yaml"))
	if err != nil || len(bundles) == 0 {
		return f, fmt.Errorf("no bundles under %s/bundles", o.example)
	}
	for _, b := range bundles {
		data, err := os.ReadFile(b)
		if err != nil {
			return f, err
		}
		if err := os.WriteFile(filepath.Join(dir, "bundles", filepath.Base(b)), data, 0o644); err != nil {
			return f, err
		}
	}
	adapterCfg := fmt.Sprintf(`adapter: {name: bench-bundles, version: "0.1.0"}
log: {level: %s, format: json}
clients:
  hyperfleet_api: {base_url: %q, version: v1, timeout: 10s, retry_attempts: 3, retry_backoff: exponential}
  broker: {subscription_id: bench, topic: %q}
  maestro:
    grpc_server_address: %q
    http_server_address: %q
    source_id: %q
    insecure: true
    timeout: 20s
`, o.logLevel, apiURL, topic, o.maestroGRPC, o.maestroREST, sourceID)
	brokerCfg := fmt.Sprintf(`broker:
  type: rabbitmq
  rabbitmq: {url: %q, exchange: %q, exchange_type: topic, prefetch_count: %d}
  delivery: {max_deliveries: 5, min_backoff: 1s, max_backoff: 8s}
subscriber: {parallelism: %d, shutdown_timeout: 20s}
`, o.rabbitURL, topic, o.prefetch, o.parallelism)
	for path, content := range map[string][]byte{f.task: task, f.adapter: []byte(adapterCfg), f.broker: []byte(brokerCfg)} {
		if err := os.WriteFile(path, content, 0o600); err != nil {
			return f, err
		}
	}
	return f, nil
}

// benchTaskConfig is the example's task config with its consumer param
// replaced by consumerParam, moved after the params it reads (cluster).
func benchTaskConfig(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	params := mapValue(doc.Content[0], "params")
	if params == nil || params.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("%s: no params list", path)
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
		return nil, fmt.Errorf("%s: no consumer param to replace", path)
	}
	var repl yaml.Node
	if err := yaml.Unmarshal([]byte(consumerParam), &repl); err != nil {
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
