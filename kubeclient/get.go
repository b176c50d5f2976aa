package kubeclient

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// Get reads one object. adapter.ErrNotFound means the API server answered
// 404: the object never existed or every finalizer is gone. An object whose
// deletion is pending is returned with metadata.deletionTimestamp set.
func (c *Client) Get(ctx context.Context, ref adapter.KubeRef) (*unstructured.Unstructured, error) {
	res, _, err := c.resource(ref, false)
	if err != nil {
		return nil, classify("get", ref, err)
	}
	obj, err := res.Get(ctx, ref.Name, metav1.GetOptions{})
	if err != nil {
		return nil, classify("get", ref, err)
	}
	return obj, nil
}

func refOf(obj *unstructured.Unstructured) adapter.KubeRef {
	return adapter.KubeRef{
		APIVersion: obj.GetAPIVersion(),
		Kind:       obj.GetKind(),
		Namespace:  obj.GetNamespace(),
		Name:       obj.GetName(),
	}
}
