package main

import (
	"time"

	"github.com/bundle-adapter/bundle-adapter/internal/stacktest"
)

// writeConfigs writes the example's configs for this run into dir, each
// cluster placed on the consumer the HyperFleet API names for it
// (stacktest.WriteFleetConfigs).
func writeConfigs(o *options, dir, apiURL, sourceID, topic string) (stacktest.Files, error) {
	adapterCfg := stacktest.AdapterConfig{
		Name: "bench-bundles", LogLevel: o.logLevel,
		APIURL: apiURL, APITimeout: 10 * time.Second, APIRetryAttempts: 3, APIRetryBackoff: "exponential",
		SubscriptionID: "bench", Topic: topic,
		MaestroGRPC: o.maestroGRPC, MaestroREST: o.maestroREST, SourceID: sourceID, MaestroTimeout: 20 * time.Second,
		MaestroMaxConcurrentReads: o.maxConcurrentReads,
		MaestroViewMaxAge:         o.viewMaxAge, MaestroViewOff: o.viewMaxAge == 0,
	}
	brokerCfg := stacktest.RabbitMQConfig{
		URL: o.rabbitURL, Exchange: topic, Prefetch: o.prefetch,
		MaxDeliveries: 5, MinBackoff: time.Second, MaxBackoff: 8 * time.Second,
		Parallelism: o.parallelism, ShutdownTimeout: 20 * time.Second,
	}
	return stacktest.WriteFleetConfigs(o.example, dir, adapterCfg, brokerCfg)
}
