package main

import (
	"context"
	"log/slog"

	"k8s.io/klog/v2"

	"github.com/bundle-adapter/bundle-adapter/config"
	"github.com/bundle-adapter/bundle-adapter/health"
	"github.com/bundle-adapter/bundle-adapter/kubeclient"
)

// kubeOptions maps the adapter config's clients.kubernetes onto the client
// options. Absent (nil) means HyperFleet adapter's default: the pod's
// in-cluster service account, QPS 100, burst 200.
func kubeOptions(c *config.KubernetesClient, log *slog.Logger) kubeclient.Options {
	o := kubeclient.Options{UserAgent: userAgent(), Logger: log.With("component", "kubernetes")}
	if c == nil {
		return o
	}
	o.Kubeconfig, o.Context = c.KubeConfigPath, c.Context
	o.Timeout, o.QPS, o.Burst = c.Timeout.D(), float32(c.QPS), c.Burst
	o.FieldManager = c.FieldManager
	return o
}

// kubeCheck is /readyz's probe of the API server the kubernetes resources
// are applied to: its /readyz, through the client's own connection (so
// with its credentials and TLS settings).
func kubeCheck(kc *kubeclient.Client) health.Check {
	return func(ctx context.Context) error {
		ctx, cancel := context.WithTimeout(ctx, healthCheckTimeout)
		defer cancel()
		return kc.Ping(ctx)
	}
}

// routeClientGoLogs sends what client-go logs through klog's global logger
// (a discovery request that failed, a response it could not read) to the
// adapter's structured log instead of klog's text lines on stderr. It is
// process-wide; serve calls it when the kubernetes transport is in use.
func routeClientGoLogs(log *slog.Logger) {
	klog.SetSlogLogger(log.With("component", "client-go"))
}
