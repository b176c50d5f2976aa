package adapter

import (
	"context"
	"errors"

	workv1 "open-cluster-management.io/api/work/v1"
)

// Maestro is the client of the maestro transport (transport_maestro.go),
// the reconciler's boundary with a Maestro server. Bundles are
// ManifestWorks addressed by consumer (the target cluster) and name.
//
// Implementations must be safe for concurrent use across consumers. Every
// returned error that the reconciler must act on wraps one of the sentinel
// errors below, so callers test them with errors.Is:
//
//   - Get returns ErrNotFound when Maestro answers 404 (the bundle never
//     existed, or the agent confirmed its deletion). While a deletion is pending
//     Get returns the bundle with metadata.deletionTimestamp set.
//   - Create returns ErrAlreadyExists when a bundle of that name exists,
//     including one that is being deleted; nothing is created then. read
//     says what the caller read of the bundle before (CreateRead).
//     It returns ErrConsumerNotRegistered when the consumer is unknown.
//   - Update returns ErrUnderDeletion when the bundle carries a
//     deletionTimestamp (Maestro answers 409), ErrNotFound when it is gone.
//   - Delete is fire-and-forget: it returns once Maestro accepted the request,
//     not when the agent finished. Deleting a bundle that is already gone
//     returns ErrNotFound; deleting one already being deleted is accepted.
//   - Redelete sends the delete again even when the bundle is already
//     being deleted: Maestro keeps the first deletionTimestamp (the
//     bundle's deletion age is unchanged) and delivers the deletion to the
//     agent once more, which recovers an agent that lost the first one. On
//     a bundle not being deleted it is Delete. ErrNotFound when the bundle
//     is gone. The reconciler calls it only for a stalled deletion and
//     bounds the calls (see escalation).
//   - Any call may return ErrUnavailable (transport failure, timeout, 5xx);
//     those are the only errors worth retrying. ErrInvalid marks a request the
//     server rejected as malformed; retrying it cannot help.
type Maestro interface {
	Get(ctx context.Context, consumer, name string) (*workv1.ManifestWork, error)
	Create(ctx context.Context, consumer string, work *workv1.ManifestWork, read CreateRead) (*workv1.ManifestWork, error)
	// Update replaces the bundle's labels, annotations and spec with those of
	// desired. observed is the bundle as last read; implementations may use it
	// to compute a patch.
	Update(ctx context.Context, consumer string, observed, desired *workv1.ManifestWork) (*workv1.ManifestWork, error)
	Delete(ctx context.Context, consumer, name string) error
	Redelete(ctx context.Context, consumer, name string) error
	// GetBundles reads several bundles in one request. It returns one entry
	// per key, in the order of keys: the bundle as Get returns it
	// (deletionTimestamp set while a deletion is pending), or nil where Get
	// would return ErrNotFound. An error applies to every key and wraps the
	// same sentinels as Get's (ErrUnavailable is worth retrying).
	GetBundles(ctx context.Context, keys []BundleKey) ([]*workv1.ManifestWork, error)
}

// CreateRead is what the caller of Maestro.Create read of the bundle
// before, an explicit argument of every create.
type CreateRead bool

// CreateRead values.
const (
	// Unread: the caller did not read the bundle in this event; an
	// implementation checks for an existing one itself if it must.
	Unread CreateRead = false
	// ReadAbsent: the caller read the bundle in this event and Maestro
	// answered 404 (ErrNotFound). An implementation may then skip an
	// existence check of its own before it publishes, relying on Maestro,
	// which refuses a create of a bundle that exists, deleting or not;
	// Create must still return ErrAlreadyExists then. The pipeline creates
	// only after such a read, never on the view's word.
	ReadAbsent CreateRead = true
)

// BundleKey addresses one bundle: its consumer (target cluster) and name.
type BundleKey struct {
	Consumer, Name string
}

// Sentinel errors of the Maestro boundary. Implementations wrap them with
// context (consumer, bundle name, server message).
var (
	ErrNotFound              = errors.New("bundle not found")
	ErrAlreadyExists         = errors.New("bundle already exists")
	ErrUnderDeletion         = errors.New("bundle is being deleted")
	ErrConsumerNotRegistered = errors.New("consumer not registered in Maestro")
	ErrUnavailable           = errors.New("maestro unavailable")
	ErrInvalid               = errors.New("request rejected by maestro as invalid")
)
