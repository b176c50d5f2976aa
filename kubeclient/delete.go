package kubeclient

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/kubeclient/kubeerr"
)

// Delete asks the API server to delete the object and returns once it
// accepted: finalizers, the garbage collector and a Foreground deletion's
// dependents are not waited for. propagation is "Background", "Foreground"
// or "Orphan" ("" means Background); anything else is adapter.ErrInvalid
// without a request. adapter.ErrNotFound means the object is gone; an object
// already being deleted is accepted again (its deletionTimestamp stays).
// With ref.UID set the API server deletes only the object of that uid
// (DeleteOptions.Preconditions); a newer object of that name is left alone
// and Delete returns adapter.ErrNotFound.
func (c *Client) Delete(ctx context.Context, ref adapter.KubeRef, propagation string) error {
	policy, err := propagationPolicy(propagation)
	if err != nil {
		return classify("delete", ref, err)
	}
	res, _, err := c.resource(ref, false)
	if err != nil {
		return classify("delete", ref, err)
	}
	opts := metav1.DeleteOptions{PropagationPolicy: &policy}
	if ref.UID != "" {
		uid := types.UID(ref.UID)
		opts.Preconditions = &metav1.Preconditions{UID: &uid}
	}
	if err := res.Delete(ctx, ref.Name, opts); err != nil {
		if ref.UID != "" && apierrors.IsConflict(err) {
			// "Precondition failed: UID in precondition: ...": the
			// observed object is gone, another one holds the name.
			err = kubeerr.Wrap(adapter.ErrNotFound, "the object of uid %s is gone: %w", ref.UID, err)
		}
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
	return "", kubeerr.Wrap(adapter.ErrInvalid, "propagation %q is none of Background, Foreground, Orphan", p)
}
