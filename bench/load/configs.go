package main

import (
	"os"
	"time"

	"github.com/bundle-adapter/bundle-adapter/internal/stacktest"
)

// writeConfigs writes the example's task config, placing each cluster on
// the consumer the HyperFleet API names for it (benchTaskConfig), its
// bundles, and an adapter and broker config for this run, into dir.
func writeConfigs(o *options, dir, apiURL, sourceID, topic string) (stacktest.Files, error) {
	f := stacktest.FilesIn(dir)
	if err := stacktest.CopyExample(o.example, dir); err != nil {
		return f, err
	}
	task, err := benchTaskConfig(f.Task)
	if err != nil {
		return f, err
	}
	if err := os.WriteFile(f.Task, task, 0o600); err != nil {
		return f, err
	}
	adapterCfg := stacktest.AdapterConfig{
		Name: "bench-bundles", LogLevel: o.logLevel,
		APIURL: apiURL, APITimeout: 10 * time.Second, APIRetryAttempts: 3, APIRetryBackoff: "exponential",
		SubscriptionID: "bench", Topic: topic,
		MaestroGRPC: o.maestroGRPC, MaestroREST: o.maestroREST, SourceID: sourceID, MaestroTimeout: 20 * time.Second,
		MaestroViewMaxAge: o.viewMaxAge,
	}
	brokerCfg := stacktest.RabbitMQConfig{
		URL: o.rabbitURL, Exchange: topic, Prefetch: o.prefetch,
		MaxDeliveries: 5, MinBackoff: time.Second, MaxBackoff: 8 * time.Second,
		Parallelism: o.parallelism, ShutdownTimeout: 20 * time.Second,
	}
	return f, stacktest.WriteFiles(f, adapterCfg.YAML(), brokerCfg.YAML())
}

// benchTaskConfig is the task config at path with its consumer param
// replaced by one that reads the cluster's consumer from the API (default
// cluster1), so the bundles spread over several consumers and agents.
func benchTaskConfig(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return stacktest.ConsumerFromCluster(data, "cluster1")
}
