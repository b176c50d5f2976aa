package maestroclient

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	workv1client "open-cluster-management.io/api/client/work/clientset/versioned/typed/work/v1"
)

// Delete asks Maestro to delete a bundle and returns once the request is
// accepted; the agent removes the manifests later and Get keeps returning
// the bundle, with deletionTimestamp, until it confirms. Deleting a bundle
// that is gone returns ErrNotFound. A bundle already being deleted is left
// alone (nil error), so its deletionTimestamp keeps the first request's time.
func (c *Client) Delete(ctx context.Context, consumer, name string) error {
	if err := checkKey(consumer, name); err != nil {
		return wrapCall("delete", consumer, name, err)
	}
	return c.call(ctx, "delete", consumer, name, func(ctx context.Context) error {
		work, err := c.get(ctx, consumer, name)
		if err != nil || work.DeletionTimestamp != nil {
			return err
		}
		return c.withConsumer(ctx, consumer, name, func(works workv1client.ManifestWorkInterface) error {
			return classify(works.Delete(ctx, name, metav1.DeleteOptions{}))
		})
	})
}
