package metrics

import (
	"context"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/kubeclient/memkube"
)

// The kubernetes wrapper counts every call by verb and result code.
func TestKubeRequests(t *testing.T) {
	m := New()
	k := m.Kube(memkube.New(memkube.Options{}))
	ctx := context.Background()
	ref := adapter.KubeRef{APIVersion: "v1", Kind: "ConfigMap", Namespace: "ns", Name: "cm"}
	obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "cm", "namespace": "ns"}}}

	_, _ = k.Get(ctx, ref)
	_, _ = k.Create(ctx, obj.DeepCopy())
	_, _ = k.Create(ctx, obj.DeepCopy())
	_, _ = k.Apply(ctx, obj.DeepCopy())
	_, _ = k.List(ctx, ref, nil)
	_ = k.Delete(ctx, ref, "")
	_ = k.Delete(ctx, ref, "Sideways")

	cases := []struct {
		verb, code string
		want       float64
	}{
		{"get", "not_found", 1},
		{"create", "ok", 1},
		{"create", "already_exists", 1},
		{"apply", "ok", 1},
		{"list", "ok", 1},
		{"delete", "ok", 1},
		{"delete", "invalid", 1},
	}
	for _, c := range cases {
		if got := testutil.ToFloat64(m.kubeRequests.WithLabelValues(c.verb, c.code)); got != c.want {
			t.Errorf("kubernetes_requests_total{verb=%q,code=%q} = %v, want %v", c.verb, c.code, got, c.want)
		}
	}
	if n := testutil.CollectAndCount(m.kubeRequests); n != len(cases) {
		t.Errorf("%d series, want %d", n, len(cases))
	}
}
