package main

import (
	"context"
	"path/filepath"
	"time"

	"github.com/bundle-adapter/bundle-adapter/internal/stacktest"
)

// Names the demo gives the adapter in Maestro and RabbitMQ.
const (
	demoSourceID = "bundle-adapter-demo" // Maestro source id
	demoTopic    = "bundle-adapter-demo" // clients.broker.topic, also the exchange
)

// demoConfig is where the adapter's config files are.
type demoConfig struct {
	stacktest.Files
	queue string // the adapter's RabbitMQ queue
}

// writeConfigs writes the onprem example's adapter and broker configs into
// dir with the endpoints of the demo (fake API, the stack's Maestro, a demo
// exchange); the task config and bundles are the example's own files.
func writeConfigs(o options, dir, apiURL string) (demoConfig, error) {
	c := demoConfig{Files: stacktest.FilesIn(dir)}
	c.Task = filepath.Join(o.example, "task-config.yaml")
	ac, err := stacktest.RewriteYAML(filepath.Join(o.example, "adapter-config.yaml"), c.Adapter, map[string]any{
		"log.format":                          "text",
		"clients.hyperfleet_api.base_url":     apiURL,
		"clients.broker.topic":                demoTopic,
		"clients.maestro.grpc_server_address": o.grpcAddr,
		"clients.maestro.http_server_address": o.restURL,
		"clients.maestro.source_id":           demoSourceID,
	})
	if err != nil {
		return c, err
	}
	_, err = stacktest.RewriteYAML(filepath.Join(o.example, "broker.yaml"), c.Broker, map[string]any{
		"broker.rabbitmq.url":         o.rabbitURL,
		"broker.rabbitmq.exchange":    demoTopic,
		"subscriber.shutdown_timeout": "10s",
	})
	if err != nil {
		return c, err
	}
	sub, _ := stacktest.Lookup(ac, "clients.broker.subscription_id").(string)
	c.queue = demoTopic + "-" + sub
	return c, nil
}

// adapterProc is the running `bundle-adapter serve`.
type adapterProc struct {
	*stacktest.Adapter
	writes map[string]float64
}

// startAdapter starts serve in its own process group, so the terminal's
// SIGINT reaches only the demo, which stops the adapter with SIGTERM.
func startAdapter(o options, c demoConfig) (*adapterProc, error) {
	a, err := stacktest.StartAdapter(stacktest.AdapterOptions{Bin: o.bin, Files: c.Files,
		Env: []string{"MAESTRO_CONSUMER=" + o.consumer}, OwnProcessGroup: true})
	if err != nil {
		return nil, err
	}
	return &adapterProc{Adapter: a}, nil
}

// waitReady polls /readyz until it answers 200; errInterrupted when ctx is
// done first.
func (p *adapterProc) waitReady(ctx context.Context, timeout time.Duration) error {
	err := p.WaitReady(ctx, timeout)
	if err != nil && ctx.Err() != nil {
		return errInterrupted
	}
	return err
}

// writesSinceLast returns the Maestro writes (create, update, delete calls)
// the adapter made since the previous call, by verb.
func (p *adapterProc) writesSinceLast() map[string]int {
	m, err := p.Metrics()
	if err != nil {
		return nil
	}
	now := m.By(stacktest.MaestroRequests, "verb")
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
