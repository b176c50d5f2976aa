package maestroclient

import (
	"context"
	"errors"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	workv1client "open-cluster-management.io/api/client/work/clientset/versioned/typed/work/v1"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// Create publishes a new bundle for consumer. It returns ErrAlreadyExists
// when a bundle of that name exists, deletion pending or not, and
// ErrConsumerNotRegistered when Maestro does not know the consumer. The
// returned work is the one sent; its status is empty until the agent reports.
//
// A retried create whose first try reached Maestro fails with
// ErrAlreadyExists: read the bundle again before acting on it.
//
// sdk-go's work client reads the bundle before it publishes, to refuse a
// create of one that exists. When read is adapter.ReadAbsent (the
// caller's own read just answered 404) that read is skipped: Maestro's
// unique bundle id refuses the create of an existing bundle, deleting or
// not, and the refusal ("already exists") is ErrAlreadyExists as well
// (the contract suite checks both paths on the real server).
func (c *Client) Create(ctx context.Context, consumer string, work *workv1.ManifestWork, read adapter.CreateRead) (*workv1.ManifestWork, error) {
	if work == nil {
		return nil, wrapCall("create", consumer, "", fmt.Errorf("%w: nil bundle", adapter.ErrInvalid))
	}
	if err := checkKey(consumer, work.Name); err != nil {
		return nil, wrapCall("create", consumer, work.Name, err)
	}
	desired := work.DeepCopy()
	desired.Namespace = consumer
	if read == adapter.ReadAbsent {
		ctx = withKnownAbsent(ctx, consumer, work.Name)
	}
	var created *workv1.ManifestWork
	err := c.call(ctx, "create", consumer, work.Name, func(ctx context.Context) error {
		return c.withConsumer(ctx, consumer, desired.Name, func(works workv1client.ManifestWorkInterface) error {
			var err error
			created, err = works.Create(ctx, desired, metav1.CreateOptions{})
			return classify(err)
		})
	})
	if errors.Is(err, adapter.ErrConsumerNotRegistered) {
		return nil, fmt.Errorf("maestro create %s/%s: %w: register consumer %q first (POST /api/maestro/v1/consumers)",
			consumer, work.Name, adapter.ErrConsumerNotRegistered, consumer)
	}
	return created, err
}
