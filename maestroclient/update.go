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
// An observed bundle without metadata.generation was not read from Maestro:
// Update then reads the current bundle and patches from it, so a bundle that
// never existed gives ErrNotFound.
//
// Right after an update Get still shows the status of the previous
// generation: compare status.conditions[].observedGeneration with
// metadata.generation.
func (c *Client) Update(ctx context.Context, consumer string, observed, desired *workv1.ManifestWork) (*workv1.ManifestWork, error) {
	if err := checkUpdate(consumer, observed, desired); err != nil {
		return nil, err
	}
	var updated *workv1.ManifestWork
	err := c.call(ctx, "update", consumer, observed.Name, func(ctx context.Context) error {
		base, err := c.updateBase(ctx, consumer, observed)
		if err != nil {
			return err
		}
		patch, err := grpcsource.ToWorkPatch(base, desired)
		if err != nil {
			return fmt.Errorf("%w: %w", adapter.ErrInvalid, err)
		}
		return c.withConsumer(ctx, consumer, observed.Name, func(works workv1client.ManifestWorkInterface) error {
			var err error
			updated, err = works.Patch(ctx, observed.Name, types.MergePatchType, patch, metav1.PatchOptions{})
			return classify(err)
		})
	})
	return updated, err
}

// updateBase is the bundle the patch starts from: observed when it was read
// from Maestro (it has a generation), else the bundle as Maestro holds it now.
func (c *Client) updateBase(ctx context.Context, consumer string, observed *workv1.ManifestWork) (*workv1.ManifestWork, error) {
	if observed.Generation != 0 {
		return observed, nil
	}
	current, err := c.get(ctx, consumer, observed.Name)
	if err != nil {
		return nil, err
	}
	if current.DeletionTimestamp != nil {
		return nil, underDeletion(current)
	}
	return current, nil
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
		return wrapCall("update", consumer, name, underDeletion(observed))
	}
	return nil
}

func underDeletion(w *workv1.ManifestWork) error {
	return fmt.Errorf("%w: deletion requested at %s",
		adapter.ErrUnderDeletion, w.DeletionTimestamp.UTC().Format("2006-01-02T15:04:05Z"))
}
