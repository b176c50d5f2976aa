package kubeclient_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/kubeclient"
	"github.com/bundle-adapter/bundle-adapter/kubeclient/kubecontract"
)

// The API server of hack/kube.sh: `eval "$(bash hack/kube.sh env)"` sets
// both. KUBE_SERVER_URL is required too, so a KUBECONFIG of the developer's
// own cluster never receives the scenarios' objects.
const (
	envKubeconfig = "KUBECONFIG"
	envServerURL  = "KUBE_SERVER_URL"
)

type apiServer struct {
	kubeconfig string
	dyn        dynamic.Interface
}

// requireAPIServer skips the test without the local API server's
// environment, or fails it when REQUIRE_INTEGRATION=1 (CI, hack/test.sh).
func requireAPIServer(t *testing.T) apiServer {
	t.Helper()
	kc, url := os.Getenv(envKubeconfig), os.Getenv(envServerURL)
	if kc == "" || url == "" {
		msg := fmt.Sprintf("integration test: set %s and %s (eval \"$(bash hack/kube.sh env)\" after bash hack/kube.sh start)", envKubeconfig, envServerURL)
		if os.Getenv("REQUIRE_INTEGRATION") == "1" {
			t.Fatal("REQUIRE_INTEGRATION=1: " + msg)
		}
		t.Skip(msg)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", kc)
	if err != nil {
		t.Fatalf("kubeconfig %s: %v", kc, err)
	}
	if cfg.Host != url {
		t.Fatalf("kubeconfig %s points at %s, not %s=%s: refusing to write to another cluster", kc, cfg.Host, envServerURL, url)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return apiServer{kubeconfig: kc, dyn: dyn}
}

var (
	namespacesGVR = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
	configMapsGVR = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
)

// namespace creates a namespace for one test and deletes it at cleanup.
func (s apiServer) namespace(t *testing.T, prefix string) string {
	t.Helper()
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	name := prefix + "-" + hex.EncodeToString(b)
	ns := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": name}}}
	if _, err := s.dyn.Resource(namespacesGVR).Create(context.Background(), ns, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create namespace %s: %v", name, err)
	}
	t.Cleanup(func() {
		_ = s.dyn.Resource(namespacesGVR).Delete(context.Background(), name, metav1.DeleteOptions{})
	})
	return name
}

// removeFinalizers is what another controller does when it finishes.
func (s apiServer) removeFinalizers(ctx context.Context, ref adapter.KubeRef) error {
	var res dynamic.ResourceInterface
	switch ref.Kind {
	case "ConfigMap":
		res = s.dyn.Resource(configMapsGVR).Namespace(ref.Namespace)
	case "Namespace":
		res = s.dyn.Resource(namespacesGVR)
	default:
		return fmt.Errorf("removeFinalizers: kind %s not handled by this harness", ref.Kind)
	}
	_, err := res.Patch(ctx, ref.Name, types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
	if apierrors.IsNotFound(err) {
		return fmt.Errorf("%w: %v", adapter.ErrNotFound, err)
	}
	return err
}

func TestContractAgainstRealAPIServer(t *testing.T) {
	s := requireAPIServer(t)
	c, err := kubeclient.New(kubeclient.Options{
		Kubeconfig: s.kubeconfig,
		Timeout:    10 * time.Second,
		Logger:     slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Ping(context.Background()); err != nil {
		t.Fatalf("Ping: %v", err)
	}
	kubecontract.Run(t, kubecontract.Harness{
		Kube:             c,
		Namespace:        s.namespace(t, "kubecontract"),
		RemoveFinalizers: s.removeFinalizers,
		Timeout:          60 * time.Second,
	})
}
