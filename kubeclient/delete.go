package kubeclient

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// Delete asks the API server to delete the object and returns once it
// accepted: finalizers, the garbage collector and a Foreground deletion's
// dependents are not waited for. propagation is "Background", "Foreground"
// or "Orphan" ("" means Background); anything else is adapter.ErrInvalid
// without a request. adapter.ErrNotFound means the object is gone; an object
// already being deleted is accepted again (its deletionTimestamp stays).
func (c *Client) Delete(ctx context.Context, ref adapter.KubeRef, propagation string) error {
	policy, err := propagationPolicy(propagation)
	if err != nil {
		return classify("delete", ref, err)
	}
	res, _, err := c.resource(ref, false)
	if err != nil {
		return classify("delete", ref, err)
	}
	if err := res.Delete(ctx, ref.Name, metav1.DeleteOptions{PropagationPolicy: &policy}); err != nil {
		return classify("delete", ref, err)
	}
	c.log.Debug("kubernetes object deletion requested", "kind", ref.Kind, "namespace", ref.Namespace, "name", ref.Name,
		"propagation", string(policy))
	return nil
}

func propagationPolicy(p string) (metav1.DeletionPropagation, error) {
	switch metav1.DeletionPropagation(p) {
	case "":
		return metav1.DeletePropagationBackground, nil
	case metav1.DeletePropagationBackground, metav1.DeletePropagationForeground, metav1.DeletePropagationOrphan:
		return metav1.DeletionPropagation(p), nil
	}
	return "", fmt.Errorf("%w: propagation %q is none of Background, Foreground, Orphan", adapter.ErrInvalid, p)
}
