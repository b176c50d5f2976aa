package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	"github.com/bundle-adapter/bundle-adapter/config"
	"github.com/bundle-adapter/bundle-adapter/internal/configfile"
	"github.com/bundle-adapter/bundle-adapter/internal/secret"
	"github.com/bundle-adapter/bundle-adapter/kubeclient"
	"github.com/bundle-adapter/bundle-adapter/task"
)

// serve builds the transport clients config.Transports names: those the
// resources use and, for a task without resources, the configured ones
// (finding 17 of issue 28: a kube-only adapter config with such a task
// passed validate, and serve built a Maestro client from nothing).
func TestTransportsUsed(t *testing.T) {
	res := func(client string) task.Resource {
		return task.Resource{Transport: task.Transport{Client: client}}
	}
	maestro := config.MaestroConfig{GRPCServerAddress: secret.NewURL("m:8090"), HTTPServerAddress: secret.NewURL("http://m:8000"), SourceID: "s"}
	kube := &config.KubernetesClient{}
	cases := []struct {
		name          string
		resources     []task.Resource
		clients       config.Clients
		maestro, kube bool
	}{
		{"no resources: Maestro as always", nil, config.Clients{Maestro: maestro}, true, false},
		{"no resources, kube-only adapter config: no Maestro built from nothing", nil, config.Clients{Kubernetes: kube}, false, true},
		{"no resources, both configured", nil, config.Clients{Maestro: maestro, Kubernetes: kube}, true, true},
		{"maestro only", []task.Resource{res("maestro")}, config.Clients{Maestro: maestro}, true, false},
		{"kubernetes only: no Maestro client", []task.Resource{res("kubernetes"), res("kubernetes")}, config.Clients{Maestro: maestro, Kubernetes: kube}, false, true},
		{"both", []task.Resource{res("maestro"), res("kubernetes")}, config.Clients{Maestro: maestro}, true, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := &config.Config{Adapter: &config.AdapterConfig{Clients: c.clients},
				Task: &task.TaskConfig{TaskSpec: task.TaskSpec{Resources: c.resources}}}
			m, k := cfg.Transports()
			if m != c.maestro || k != c.kube {
				t.Errorf("maestro %v kube %v, want %v %v", m, k, c.maestro, c.kube)
			}
		})
	}
}

// clients.kubernetes reaches the client as HyperFleet adapter's keys mean
// it; absent, the client runs in-cluster with its defaults.
func TestKubeOptions(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	cases := []struct {
		name string
		in   *config.KubernetesClient
		want kubeclient.Options
	}{
		{"absent", nil, kubeclient.Options{}},
		{"every key", &config.KubernetesClient{APIVersion: "v1", KubeConfigPath: "/kc", Context: "ctx", QPS: 25, Burst: 50,
			Timeout: configfile.Duration(3 * time.Second), FieldManager: "fm"},
			kubeclient.Options{Kubeconfig: "/kc", Context: "ctx", QPS: 25, Burst: 50, Timeout: 3 * time.Second, FieldManager: "fm"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := kubeOptions(c.in, log)
			if got.UserAgent != userAgent() || got.Logger == nil {
				t.Errorf("user agent %q logger %v, want %q and a logger", got.UserAgent, got.Logger, userAgent())
			}
			got.UserAgent, got.Logger = "", nil
			if got != c.want {
				t.Errorf("options %+v, want %+v", got, c.want)
			}
		})
	}
}

// /readyz probes the API server only when the kubernetes transport is in
// use, and fails while it is not ready.
func TestReadinessProbesTheAPIServer(t *testing.T) {
	var ready atomic.Bool
	var paths atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		paths.Store(r.URL.Path)
		if !ready.Load() {
			w.WriteHeader(http.StatusInternalServerError)
			_, _ = io.WriteString(w, "[-]etcd failed")
			return
		}
		_, _ = io.WriteString(w, "ok")
	}))
	defer srv.Close()
	kc, err := kubeclient.NewForConfig(&rest.Config{Host: srv.URL}, kubeclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if checks := readinessChecks(nil, nil); len(checks) != 0 {
		t.Errorf("checks without transports: %v", slices.Collect(maps.Keys(checks)))
	}
	checks := readinessChecks(nil, kc)
	check, ok := checks["kubernetes"]
	if !ok || len(checks) != 1 {
		t.Fatalf("checks with the kubernetes transport only: %v, want exactly kubernetes", slices.Collect(maps.Keys(checks)))
	}
	if err := check(context.Background()); err == nil {
		t.Error("check passed while the API server answers 500")
	}
	ready.Store(true)
	if err := check(context.Background()); err != nil {
		t.Errorf("check of a ready API server: %v", err)
	}
	if p := paths.Load(); p != "/readyz" {
		t.Errorf("probe asked %v, want /readyz", p)
	}
}

// client-go's own log lines (through klog) reach the adapter's JSON log.
func TestClientGoLogsAreStructured(t *testing.T) {
	var buf bytes.Buffer
	routeClientGoLogs(slog.New(slog.NewJSONHandler(&buf, nil)))
	defer klog.ClearLogger()
	klog.ErrorS(nil, "Unhandled Error", "err", "couldn't get current server API group list")
	klog.Flush()
	out := buf.String()
	if !strings.Contains(out, `"component":"client-go"`) || !strings.Contains(out, "couldn't get current server API group list") {
		t.Errorf("client-go's log line did not reach the structured log: %q", out)
	}
}
