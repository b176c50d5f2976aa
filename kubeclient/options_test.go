package kubeclient

import (
	"strings"
	"testing"
	"time"
)

func TestOptionsRestConfig(t *testing.T) {
	cases := []struct {
		name     string
		o        Options
		wantHost string
		wantErr  string
	}{
		{"current context", Options{Kubeconfig: "testdata/two-contexts.kubeconfig"}, "https://first.example:6443", ""},
		{"named context", Options{Kubeconfig: "testdata/two-contexts.kubeconfig", Context: "second"}, "https://second.example:6443", ""},
		{"unknown context", Options{Kubeconfig: "testdata/two-contexts.kubeconfig", Context: "third"}, "", "testdata/two-contexts.kubeconfig"},
		{"missing file", Options{Kubeconfig: "testdata/nope.kubeconfig"}, "", "testdata/nope.kubeconfig"},
		{"context without kubeconfig", Options{Context: "second"}, "", "without a kubeconfig"},
		{"not in a pod", Options{}, "", "in-cluster"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("KUBERNETES_SERVICE_HOST", "")
			t.Setenv("KUBERNETES_SERVICE_PORT", "")
			cfg, err := c.o.withDefaults().restConfig()
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Host != c.wantHost {
				t.Errorf("host %q, want %q", cfg.Host, c.wantHost)
			}
		})
	}
}

func TestOptionsDefaults(t *testing.T) {
	cases := []struct {
		name                string
		o                   Options
		qps                 float32
		burst               int
		timeout             time.Duration
		fieldManager, agent string
	}{
		{"zero value (hyperfleet-adapter's 100/200)", Options{}, 100, 200, DefaultTimeout, "bundle-adapter", "bundle-adapter"},
		{"given", Options{QPS: 5, Burst: 7, Timeout: time.Second, FieldManager: "fm", UserAgent: "ua"}, 5, 7, time.Second, "fm", "ua"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.o.Kubeconfig = "testdata/two-contexts.kubeconfig"
			o := c.o.withDefaults()
			cfg, err := o.restConfig()
			if err != nil {
				t.Fatal(err)
			}
			if cfg.QPS != c.qps || cfg.Burst != c.burst || cfg.Timeout != c.timeout || cfg.UserAgent != c.agent || o.FieldManager != c.fieldManager {
				t.Errorf("qps %v burst %d timeout %v agent %q field manager %q, want %v %d %v %q %q",
					cfg.QPS, cfg.Burst, cfg.Timeout, cfg.UserAgent, o.FieldManager, c.qps, c.burst, c.timeout, c.agent, c.fieldManager)
			}
		})
	}
}

func TestNewNamesTheKubeconfig(t *testing.T) {
	_, err := New(Options{Kubeconfig: "testdata/missing.kubeconfig"})
	if err == nil || !strings.Contains(err.Error(), "testdata/missing.kubeconfig") {
		t.Errorf("New with a missing kubeconfig: %v, want an error naming the file", err)
	}
}
