package kubecontract

import (
	"crypto/rand"
	"encoding/hex"
	"strconv"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/bundles"
)

// LabelRun is the label every object of one Run carries, with a value unique
// to the scenario, so List sees only the scenario's own objects.
const LabelRun = "contract.bundle-adapter.io/run"

// ConfigMap returns a ConfigMap as the adapter renders one: data, the
// fingerprint annotation, labels and finalizers as given.
func ConfigMap(namespace, name, fingerprint string, data, labels map[string]string, finalizers ...string) *unstructured.Unstructured {
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1",
		"kind":       "ConfigMap",
		"metadata": map[string]any{
			"name":      name,
			"namespace": namespace,
			"annotations": map[string]any{
				bundles.FingerprintAnnotation: fingerprint,
			},
		},
	}}
	if len(data) > 0 {
		d := map[string]any{}
		for k, v := range data {
			d[k] = v
		}
		obj.Object["data"] = d
	}
	if len(labels) > 0 {
		obj.SetLabels(labels)
	}
	if len(finalizers) > 0 {
		obj.SetFinalizers(finalizers)
	}
	return obj
}

// Namespace returns a cluster-scoped Namespace with the fingerprint
// annotation and labels as given.
func Namespace(name, fingerprint string, labels map[string]string) *unstructured.Unstructured {
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1",
		"kind":       "Namespace",
		"metadata": map[string]any{
			"name": name,
			"annotations": map[string]any{
				bundles.FingerprintAnnotation: fingerprint,
			},
		},
	}}
	if len(labels) > 0 {
		obj.SetLabels(labels)
	}
	return obj
}

// RefOf addresses obj.
func RefOf(obj *unstructured.Unstructured) adapter.KubeRef {
	return adapter.KubeRef{
		APIVersion: obj.GetAPIVersion(),
		Kind:       obj.GetKind(),
		Namespace:  obj.GetNamespace(),
		Name:       obj.GetName(),
	}
}

var (
	runID = randomHex(3)
	seq   atomic.Int64
)

// unique returns a DNS-1123 label starting with prefix, unique to this
// process and (with high probability) to this run against a shared server.
func unique(prefix string) string {
	return prefix + "-" + runID + "-" + strconv.FormatInt(seq.Add(1), 10)
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}
