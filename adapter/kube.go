package adapter

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Kube is the client of the kubernetes transport (transport.client:
// kubernetes; transport_kube.go), the reconciler's boundary with a
// Kubernetes API server: each resource of the task config is one object
// applied straight to a cluster instead of a ManifestWork bundle delivered
// through Maestro. The flow and the decision are the same; only the reads
// and writes differ.
//
// Implementations must be safe for concurrent use. Errors wrap the same
// sentinels as Maestro's, tested with errors.Is:
//
//   - Get returns ErrNotFound when the API server answers 404 (the object
//     never existed, or its deletion finished: every finalizer is gone).
//     While a deletion is pending Get returns the object with
//     metadata.deletionTimestamp set.
//   - List returns the objects of ref's kind in ref's namespace (all
//     namespaces when empty) whose labels match every label given; ref.Name
//     is ignored. An empty result is not an error.
//   - Create creates the object; ErrAlreadyExists when an object of that
//     name exists, including one that is being deleted: nothing is written
//     then.
//   - Apply writes the object with server-side apply under the adapter's
//     field manager (conflicts forced: the adapter owns the fields it
//     renders). It returns ErrUnderDeletion when the live object carries a
//     deletionTimestamp and ErrNotFound when it is gone; it never creates.
//   - Delete is fire-and-forget: it returns once the API server accepted the
//     request, not when finalizers ran. propagation is "Background",
//     "Foreground" or "Orphan" ("" means Background). Deleting an object
//     that is gone returns ErrNotFound; one already being deleted is
//     accepted. With ref.UID set, only the object of that uid is deleted:
//     when the name now holds another object (a replica recreated it
//     meanwhile) nothing is deleted and ErrNotFound is returned, since the
//     object observed is gone. Nothing ever removes finalizers.
//   - Any call may return ErrUnavailable (transport failure, timeout, 5xx,
//     429); only those are worth retrying. ErrInvalid marks a request the
//     API server rejected (400, 422, unknown kind): retrying cannot help.
type Kube interface {
	Get(ctx context.Context, ref KubeRef) (*unstructured.Unstructured, error)
	List(ctx context.Context, ref KubeRef, labels map[string]string) ([]*unstructured.Unstructured, error)
	Create(ctx context.Context, obj *unstructured.Unstructured) (*unstructured.Unstructured, error)
	Apply(ctx context.Context, obj *unstructured.Unstructured) (*unstructured.Unstructured, error)
	Delete(ctx context.Context, ref KubeRef, propagation string) error
}

// KubeRef addresses one object on a cluster: its apiVersion and kind as the
// manifest spells them, its namespace ("" for cluster-scoped kinds) and name.
// UID, when set, is the uid of the object observed: Delete then deletes that
// object only (Get, List, Create and Apply ignore it).
type KubeRef struct {
	APIVersion, Kind, Namespace, Name string
	UID                               string
}
