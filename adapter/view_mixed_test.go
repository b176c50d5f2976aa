package adapter_test

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/config"
	"github.com/bundle-adapter/bundle-adapter/hyperfleetapi/apistub"
	"github.com/bundle-adapter/bundle-adapter/kubeclient/memkube"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/memmaestro"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/view"
)

// The view serves the Maestro bundles of a task that mixes both transports
// when its bundles come before its Kubernetes objects (the trial decides
// them before any object's outcome exists, as the flow does); the objects
// are read as always. With an object first, a bundle's rules may read its
// outcome, so the event reads Maestro.
func TestViewServesMixedTask(t *testing.T) {
	tests := []struct {
		task     string
		view     adapter.ViewUse
		requests int
	}{
		{"testdata/mixed/maestro-first.yaml", adapter.ViewHit, 0},
		{"testdata/mixed/kube-first.yaml", adapter.ViewNone, 1},
	}
	for _, tt := range tests {
		t.Run(tt.task, func(t *testing.T) {
			tc, err := config.LoadTaskConfig(tt.task)
			if err != nil {
				t.Fatal(err)
			}
			v := view.New(view.Options{Synced: true})
			store := memmaestro.New(memmaestro.Options{AutoStatus: true, Consumers: []string{"c1"}})
			p, err := adapter.New(adapter.Options{Task: tc, Adapter: config.AdapterInfo{Name: "test-adapter"},
				Maestro: view.Maestro(store, v), View: v, Kube: memkube.New(memkube.Options{}), API: apistub.New("v1", nil),
				LookupEnv: func(string) (string, bool) { return "", false }, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
			if err != nil {
				t.Fatal(err)
			}
			ev := adapter.Event{ID: "x", Type: "com.redhat.hyperfleet.cluster.reconcile", Source: "test",
				Data: map[string]any{"id": "x", "kind": "Cluster", "generation": int64(1)}}
			for range 2 { // create both, then the read that fills the view
				if res := p.Run(context.Background(), ev); res.Err() != nil {
					t.Fatal(res.Err())
				}
			}
			res := p.Run(context.Background(), ev)
			if res.Err() != nil {
				t.Fatal(res.Err())
			}
			if res.View != tt.view || res.MaestroRequests != tt.requests || res.KubeRequests != 1 {
				t.Errorf("view %q, %d Maestro and %d Kubernetes requests; want %q, %d and 1 (the object's Get)",
					res.View, res.MaestroRequests, res.KubeRequests, tt.view, tt.requests)
			}
			for _, o := range res.Bundles {
				if o.Operation != adapter.OpUnchanged {
					t.Errorf("%s: %s/%s, want unchanged", o.Name, o.Operation, o.State)
				}
			}
		})
	}
}
