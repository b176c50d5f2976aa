package bundles

import (
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// kubeObject is the shape every Kubernetes object shares (type, metadata)
// plus the two kinds of content: what the adapter sets and status.
type kubeObject struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Data              map[string]string `json:"data,omitempty"`
	Status            map[string]string `json:"status,omitempty"`
}

// TestContainsComparesEveryObjectField walks a Kubernetes object's fields
// by reflection (TypeMeta, every member of ObjectMeta, content and status)
// and requires Contains to refuse a live object that lacks the field the
// desired one sets, unless NotContained lists it with its reason.
func TestContainsComparesEveryObjectField(t *testing.T) {
	base := kubeObject{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: "a"},
	}
	seen := map[string]bool{}
	for _, f := range workFieldPaths(reflect.TypeOf(base), "") {
		seen[f.path] = true
		t.Run(f.path, func(t *testing.T) {
			desired := base
			v := reflect.ValueOf(&desired).Elem()
			v.FieldByIndex(f.index).Set(sampleValue(t, v.FieldByIndex(f.index).Type()))
			live := base
			if f.path == "metadata.name" || f.path == "kind" || f.path == "apiVersion" {
				// the identity is set on both; a different value must fail
				reflect.ValueOf(&live).Elem().FieldByIndex(f.index).SetString("other")
			}
			d, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&desired)
			if err != nil {
				t.Fatal(err)
			}
			l, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&live)
			if err != nil {
				t.Fatal(err)
			}
			contained := Contains(l, d)
			reason, listed := NotContained[f.path]
			switch {
			case listed && !contained:
				t.Errorf("%s is listed as not compared (%s), but Contains compares it", f.path, reason)
			case !listed && contained:
				t.Errorf("%s set on the desired object only: Contains adopts the live object; compare it or list it in NotContained with a reason", f.path)
			}
		})
	}
	for p := range NotContained {
		if !seen[p] {
			t.Errorf("NotContained lists %s, which no object has", p)
		}
	}
}
