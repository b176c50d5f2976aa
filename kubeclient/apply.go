package kubeclient

import (
	"context"
	"encoding/json"
	"errors"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/util/csaupgrade"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/kubeclient/kubeerr"
)

// applyAttempts bounds the read-then-apply rounds of one Apply when the
// object keeps changing between the read and the write.
const applyAttempts = 3

// errChanged marks an Apply that lost every round to concurrent writers.
var errChanged = errors.New("the object changed between read and apply on every attempt")

// Apply writes obj with server-side apply under the field manager, conflicts
// forced, onto the live object, and never creates one.
//
// Server-side apply creates a missing object, so Apply reads the live object
// first and sends the apply with the read's metadata.uid and
// metadata.resourceVersion as preconditions. The API server then refuses the
// write with 409 Conflict when the object changed after the read, including
// when it was deleted ("uid mismatch ... no existing object was found":
// measured on kube-apiserver v1.36, which without the uid would have created
// it) or started deleting (setting deletionTimestamp bumps the
// resourceVersion). On 409 Apply reads again: adapter.ErrNotFound once the
// object is gone, adapter.ErrUnderDeletion once it carries a
// deletionTimestamp (nothing written), another try otherwise, at most
// applyAttempts rounds, then adapter.ErrUnavailable.
//
// Fields that Create set are owned by the field manager's Update entry; the
// first Apply moves them to its Apply entry (client-go's csaupgrade, one
// JSON patch guarded by the resourceVersion), so that fields the desired
// object no longer has are removed from the live one.
func (c *Client) Apply(ctx context.Context, obj *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	ref := refOf(obj)
	res, namespaced, err := c.resource(ref, false)
	if err != nil {
		return nil, classify("apply", ref, err)
	}
	for range applyAttempts {
		out, err := c.applyOnce(ctx, res, ref, writable(obj, namespaced))
		if apierrors.IsConflict(err) {
			c.log.Debug("kubernetes apply raced a concurrent write, reading again", "kind", ref.Kind,
				"namespace", ref.Namespace, "name", ref.Name, "error", err.Error())
			continue
		}
		if err != nil {
			return nil, classify("apply", ref, err)
		}
		return out, nil
	}
	return nil, classify("apply", ref, kubeerr.Wrap(adapter.ErrUnavailable, "%w", errChanged))
}

// applyOnce is one read-then-apply round. A 409 Conflict is returned as the
// API server's error so that Apply reads again.
func (c *Client) applyOnce(ctx context.Context, res dynamic.ResourceInterface, ref adapter.KubeRef, body *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	live, err := res.Get(ctx, ref.Name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	if ts := live.GetDeletionTimestamp(); ts != nil {
		return nil, kubeerr.Wrap(adapter.ErrUnderDeletion, "deletionTimestamp %s", ts.UTC().Format("2006-01-02T15:04:05Z"))
	}
	if live, err = c.upgradeOwnership(ctx, res, live); err != nil {
		return nil, err
	}
	body.SetUID(live.GetUID())
	body.SetResourceVersion(live.GetResourceVersion())
	data, err := json.Marshal(body.Object)
	if err != nil {
		return nil, kubeerr.Wrap(adapter.ErrInvalid, "encode object: %w", err)
	}
	force := true
	out, err := res.Patch(ctx, ref.Name, types.ApplyPatchType, data, metav1.PatchOptions{FieldManager: c.fieldManager, Force: &force})
	if err != nil {
		return nil, err
	}
	c.log.Debug("kubernetes object applied", "kind", ref.Kind, "namespace", ref.Namespace, "name", ref.Name,
		"uid", out.GetUID(), "resourceVersion", out.GetResourceVersion())
	return out, nil
}

// upgradeOwnership moves the fields the field manager owns through an Update
// operation (Create's) to its Apply operation. It returns live unchanged when
// there is nothing to move, else the patched object; a 409 Conflict means
// live changed since it was read.
func (c *Client) upgradeOwnership(ctx context.Context, res dynamic.ResourceInterface, live *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	patch, err := csaupgrade.UpgradeManagedFieldsPatch(live, sets.New(c.fieldManager), c.fieldManager)
	if err != nil || patch == nil {
		return live, err
	}
	out, err := res.Patch(ctx, live.GetName(), types.JSONPatchType, patch, metav1.PatchOptions{FieldManager: c.fieldManager})
	if err != nil {
		return nil, err
	}
	c.log.Debug("kubernetes field ownership moved to server-side apply", "kind", live.GetKind(),
		"namespace", live.GetNamespace(), "name", live.GetName(), "fieldManager", c.fieldManager)
	return out, nil
}
