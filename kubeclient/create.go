package kubeclient

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Create creates obj (POST) under the field manager. adapter.ErrAlreadyExists
// means an object of that name exists, possibly being deleted: the API
// server wrote nothing. A cluster-scoped kind ignores obj's namespace.
//
// The fields Create sets are owned by the field manager through an Update
// operation; the first Apply moves them to its Apply ownership, so a field
// the desired object later drops is removed from the live one.
func (c *Client) Create(ctx context.Context, obj *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	ref := refOf(obj)
	res, namespaced, err := c.resource(ref, false)
	if err != nil {
		return nil, classify("create", ref, err)
	}
	body := writable(obj, namespaced)
	out, err := res.Create(ctx, body, metav1.CreateOptions{FieldManager: c.fieldManager})
	if err != nil {
		return nil, classify("create", ref, err)
	}
	c.log.Debug("kubernetes object created", "kind", ref.Kind, "namespace", ref.Namespace, "name", ref.Name,
		"uid", out.GetUID(), "resourceVersion", out.GetResourceVersion())
	return out, nil
}

// writable returns a copy of obj without the metadata the API server sets
// (uid, resourceVersion, generation, managedFields, creation and deletion
// timestamps), and without a namespace for a cluster-scoped kind.
func writable(obj *unstructured.Unstructured, namespaced bool) *unstructured.Unstructured {
	body := obj.DeepCopy()
	for _, f := range []string{"uid", "resourceVersion", "generation", "managedFields", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds"} {
		unstructured.RemoveNestedField(body.Object, "metadata", f)
	}
	if !namespaced {
		unstructured.RemoveNestedField(body.Object, "metadata", "namespace")
	}
	return body
}
