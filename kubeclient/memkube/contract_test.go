package memkube_test

import (
	"context"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/bundle-adapter/bundle-adapter/kubeclient/kubecontract"
	"github.com/bundle-adapter/bundle-adapter/kubeclient/memkube"
)

// The in-memory API server passes the scenarios every adapter.Kube must.
func TestContract(t *testing.T) {
	s := memkube.New(memkube.Options{})
	ns := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "contract"}}}
	if _, err := s.Create(context.Background(), ns); err != nil {
		t.Fatal(err)
	}
	kubecontract.Run(t, kubecontract.Harness{Kube: s, Namespace: "contract", RemoveFinalizers: s.RemoveFinalizers, Timeout: time.Second})
}
