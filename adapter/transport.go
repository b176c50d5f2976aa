package adapter

import (
	"context"
	"time"
)

// The reconcile flow (reconcile.go) is written once, over a transport: the
// Maestro bundles of a task (transport_maestro.go) or its Kubernetes objects
// (transport_kube.go, transport.client: kubernetes). A transport addresses
// and reads its resources; each resolved resource is a target that the flow
// decides on (decide.go) and writes through. What only one transport can do
// is an optional interface below, which the flow asks for by type
// assertion: a target without it simply never does that.
//
//	resolve   each resource: address it (render what the address needs)
//	read      per transport, one authoritative read of its resources
//	decide    per resource, in config order: the decision table
//	write     create | update | delete, read again | (recreate) delete, read again, create on 404
//	report    the outcome (outcome.go), the recreation memory, the log line

// transport reaches the resources of one transport.client.
type transport interface {
	// resolve addresses b's resource for this event, setting b.t (and
	// b.consumer, b.workName, the outcome's names). An error fails the
	// resource as RenderFailed; it is then not read.
	resolve(r *eventRun, b *bundle) error
	// read is the event's one authoritative read of bs, this transport's
	// resources in config order: each one not already failed is observed
	// (r.observe) or failed.
	read(ctx context.Context, r *eventRun, bs []*bundle)
}

// target is one resource on its transport during one event. Errors wrap the
// sentinels of the transport's client (ErrNotFound, ErrAlreadyExists,
// ErrUnavailable, ...; see Maestro and Kube).
type target interface {
	// desiredFingerprint is the fingerprint of the desired object, rendered
	// (or remembered) once per event; its error fails the resource.
	desiredFingerprint(r *eventRun, b *bundle) (string, error)
	// adoptable reports whether the observed object, which carries no
	// fingerprint annotation, already holds what this adapter would write
	// (adopt.go).
	adoptable(r *eventRun, b *bundle) bool
	// create creates the desired object; replaced, when a fingerprint,
	// names the object a recreation replaces. It is called only after this
	// event's read answered 404.
	create(ctx context.Context, r *eventRun, b *bundle, replaced string) (observation, error)
	// update writes the desired object over the observed one.
	update(ctx context.Context, r *eventRun, b *bundle) (observation, error)
	// delete sends a fire-and-forget delete of the observed object for op.
	delete(ctx context.Context, r *eventRun, b *bundle, op Operation) error
	// get reads the object again (after a delete): ErrNotFound when gone.
	get(ctx context.Context, r *eventRun, b *bundle) (observation, error)
	// observe records o (absent: the zero observation) as b's observation
	// and what CEL sees of it (resources.<name>).
	observe(r *eventRun, b *bundle, o observation)
	// reason names a failure in the transport's words (outcome reasons).
	reason(err error) string
}

// redeleter is a target whose stalled deletion can be sent again
// (escalate.go): Maestro can lose a deletion and deliver it once more; an
// API server keeps its deletion until the finalizers are gone, so a
// Kubernetes target has no such ability.
type redeleter interface {
	redelete(ctx context.Context, r *eventRun, b *bundle) error
}

// recreationKeyed is a target whose recreations the process remembers
// (recreations.go), under its key, so that a create that ends a recreation
// between two events is reported as the recreation's end.
type recreationKeyed interface {
	recreationKey(b *bundle) BundleKey
}

// tombstoned is a target whose confirmed deletions the view keeps
// (Tombstones): the end of a recreation another process saw pending is
// recognised too.
type tombstoned interface {
	tombstone(r *eventRun, b *bundle) (fingerprint string, confirmed time.Time, ok bool)
}
