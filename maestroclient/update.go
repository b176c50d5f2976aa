package maestroclient

import (
	"context"
	"fmt"

	"github.com/openshift-online/maestro/pkg/client/cloudevents/grpcsource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	workv1client "open-cluster-management.io/api/client/work/clientset/versioned/typed/work/v1"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// Update replaces the labels, annotations and spec of the bundle observed
// (as returned by Get) with those of desired, by a JSON merge patch between
// the two. It returns ErrUnderDeletion when the bundle is being deleted,
// ErrNotFound when it is gone, and ErrUnavailable wrapping a version
// conflict when the bundle changed since observed was read: read it again.
//
// Right after an update Get still shows the status of the previous
// generation: compare status.conditions[].observedGeneration with
// metadata.generation.
func (c *Client) Update(ctx context.Context, consumer string, observed, desired *workv1.ManifestWork) (*workv1.ManifestWork, error) {
	if err := checkUpdate(consumer, observed, desired); err != nil {
		return nil, err
	}
	patch, err := grpcsource.ToWorkPatch(observed, desired)
	if err != nil {
		return nil, wrapCall("update", consumer, observed.Name, fmt.Errorf("%w: %w", adapter.ErrInvalid, err))
	}
	var updated *workv1.ManifestWork
	err = c.call(ctx, "update", consumer, observed.Name, func(ctx context.Context) error {
		return c.withConsumer(ctx, consumer, func(works workv1client.ManifestWorkInterface) error {
			var err error
			updated, err = works.Patch(ctx, observed.Name, types.MergePatchType, patch, metav1.PatchOptions{})
			return classify(err)
		})
	})
	return updated, err
}

func checkUpdate(consumer string, observed, desired *workv1.ManifestWork) error {
	if observed == nil || desired == nil {
		return wrapCall("update", consumer, "", fmt.Errorf("%w: nil bundle", adapter.ErrInvalid))
	}
	name := observed.Name
	if err := checkKey(consumer, name); err != nil {
		return wrapCall("update", consumer, name, err)
	}
	if desired.Name != "" && desired.Name != name {
		return wrapCall("update", consumer, name,
			fmt.Errorf("%w: desired bundle is named %q", adapter.ErrInvalid, desired.Name))
	}
	if observed.DeletionTimestamp != nil {
		return wrapCall("update", consumer, name, fmt.Errorf("%w: deletion requested at %s",
			adapter.ErrUnderDeletion, observed.DeletionTimestamp.UTC().Format("2006-01-02T15:04:05Z")))
	}
	return nil
}
