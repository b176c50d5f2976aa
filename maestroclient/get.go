package maestroclient

import (
	"context"
	"fmt"

	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// Get reads a bundle over REST, with the status Maestro holds for it:
// work conditions and per-manifest conditions and feedback values in
// status.resourceStatus.manifests. generation is Maestro's resource version;
// a pending deletion shows as metadata.deletionTimestamp. Get returns
// ErrNotFound on 404.
func (c *Client) Get(ctx context.Context, consumer, name string) (*workv1.ManifestWork, error) {
	if err := checkKey(consumer, name); err != nil {
		return nil, wrapCall("get", consumer, name, err)
	}
	var work *workv1.ManifestWork
	err := c.call(ctx, "get", consumer, name, func(ctx context.Context) error {
		var err error
		work, err = c.get(ctx, consumer, name)
		return err
	})
	return work, err
}

// get is one REST read, without retry.
func (c *Client) get(ctx context.Context, consumer, name string) (*workv1.ManifestWork, error) {
	return c.rest.bundle(ctx, c.bundleID(consumer, name))
}

func checkKey(consumer, name string) error {
	if consumer == "" || name == "" {
		return fmt.Errorf("%w: consumer and bundle name are required", adapter.ErrInvalid)
	}
	return nil
}
