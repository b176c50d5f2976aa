package maestroclient

import (
	"context"
	"fmt"

	"github.com/openshift-online/maestro/pkg/client/cloudevents/grpcsource"
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
	rb, resp, err := c.api.DefaultAPI.ApiMaestroV1ResourceBundlesIdGet(ctx, c.bundleID(consumer, name)).Execute()
	if err != nil {
		return nil, classifyHTTP(resp, err)
	}
	work, err := grpcsource.ToManifestWork(rb)
	if err != nil {
		return nil, fmt.Errorf("decode resource bundle: %w", err)
	}
	return work, nil
}

func checkKey(consumer, name string) error {
	if consumer == "" || name == "" {
		return fmt.Errorf("%w: consumer and bundle name are required", adapter.ErrInvalid)
	}
	return nil
}
