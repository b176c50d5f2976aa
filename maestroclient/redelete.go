package maestroclient

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	workv1client "open-cluster-management.io/api/client/work/clientset/versioned/typed/work/v1"
)

// Redelete publishes the delete of a bundle again, also when it is already
// being deleted (Delete leaves such a bundle alone). Maestro's soft delete
// only stamps a bundle that has no deletion time yet, so the
// deletionTimestamp keeps the first request's time; but it records a new
// delete event, which it publishes to the consumer's agent: an agent that
// lost the first delete receives it again (docs/reliability.md). A bundle
// that is gone returns ErrNotFound.
func (c *Client) Redelete(ctx context.Context, consumer, name string) error {
	if err := checkKey(consumer, name); err != nil {
		return wrapCall("redelete", consumer, name, err)
	}
	return c.call(ctx, "redelete", consumer, name, func(ctx context.Context) error {
		if _, err := c.get(ctx, consumer, name); err != nil {
			return err
		}
		return c.withConsumer(ctx, consumer, name, func(works workv1client.ManifestWorkInterface) error {
			return classify(works.Delete(ctx, name, metav1.DeleteOptions{}))
		})
	})
}
