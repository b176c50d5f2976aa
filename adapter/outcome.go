package adapter

import (
	"errors"
	"time"

	"github.com/bundle-adapter/bundle-adapter/task"
)

// Operation is what the reconciler did, or is doing, to a bundle.
type Operation string

// Operations of a bundle outcome.
const (
	OpCreate    Operation = "create"
	OpUpdate    Operation = "update"
	OpUnchanged Operation = "unchanged"
	OpRecreate  Operation = "recreate"
	OpDelete    Operation = "delete"
	// OpSkip: the bundle is absent and its lifecycle.create.when is false;
	// nothing is written (HyperFleet's operation skip).
	OpSkip Operation = "skip"
)

// State says whether the operation is finished.
type State string

// States of a bundle outcome. Failed is used only together with an error.
const (
	StateDone    State = "done"
	StatePending State = "pending"
	StateStalled State = "stalled"
	StateFailed  State = "failed"
)

// Reasons reported in bundle outcomes (and used by the example configs in
// status conditions).
const (
	ReasonCreated   = "Created"
	ReasonUpdated   = "Updated"
	ReasonUnchanged = "Unchanged"
	// ReasonAdopted: unchanged, and the observed object carried no
	// fingerprint annotation: another writer (hyperfleet-adapter, a
	// person) made it with the content this adapter would write, so it is
	// adopted without a write.
	ReasonAdopted               = "Adopted"
	ReasonRecreated             = "Recreated"
	ReasonRecreationPending     = "RecreationPending"
	ReasonRecreationStalled     = "RecreationStalled"
	ReasonDeleted               = "Deleted"
	ReasonDeletionPending       = "DeletionPending"
	ReasonDeletionStalled       = "DeletionStalled"
	ReasonConsumerNotRegistered = "ConsumerNotRegistered"
	ReasonMaestroUnavailable    = "MaestroUnavailable"
	ReasonRenderFailed          = "RenderFailed"
	ReasonRuleFailed            = "RuleFailed"
	ReasonMaestroError          = "MaestroError"
	ReasonSkipped               = "Skipped"
)

// Outcome is the result of reconciling one bundle for one event. CEL in post
// sees it as bundles.<name> with the keys operation, state, reason,
// fingerprint, pendingSeconds, redeletes and error.
//
// Redeletes is how many times the pending deletion's delete has been sent
// again by now (the prompt re-send one redelete_window after the delete,
// then the escalation of a stalled deletion), counted from the deletion's
// age as every replica counts it; 0 before the first window.
type Outcome struct {
	Name           string    `json:"name"`
	Consumer       string    `json:"consumer"`
	WorkName       string    `json:"workName"`
	Operation      Operation `json:"operation"`
	State          State     `json:"state"`
	Reason         string    `json:"reason"`
	Fingerprint    string    `json:"fingerprint"`
	PendingSeconds int64     `json:"pendingSeconds"`
	Redeletes      int       `json:"redeletes"`
	Error          string    `json:"error"`

	err error
}

// Err is the error behind a failed outcome, nil otherwise.
func (o Outcome) Err() error { return o.err }

func (o Outcome) celValue() map[string]any {
	return map[string]any{
		"operation":      string(o.Operation),
		"state":          string(o.State),
		"reason":         o.Reason,
		"fingerprint":    o.Fingerprint,
		"pendingSeconds": o.PendingSeconds,
		"redeletes":      int64(o.Redeletes),
		"error":          o.Error,
		"consumer":       o.Consumer,
		"workName":       o.WorkName,
	}
}

// Outcome bookkeeping: how the flow (reconcile.go) records what a
// decision and its write left a resource in.

// reportObserved reports a decision whose write is done or not needed, from
// what Maestro shows: unchanged, a deletion in progress (pending or, past the
// rule's deadline, stalled), or a delete already done (404).
func (r *eventRun) reportObserved(b *bundle, op Operation) {
	switch {
	case op == OpUnchanged:
		r.done(b, OpUnchanged)
	case !b.obs.present():
		r.done(b, op)
	default:
		r.pending(b, op, b.obs.pendingFor(r.now))
	}
}

func (r *eventRun) done(b *bundle, op Operation) {
	b.out.Operation, b.out.State = op, StateDone
	b.out.Reason = reasons[op][StateDone]
	b.out.PendingSeconds = 0
}

func (r *eventRun) pending(b *bundle, op Operation, waited time.Duration) {
	b.out.Operation = op
	b.out.PendingSeconds = int64(waited / time.Second)
	b.out.State = StatePending
	if waited > r.deadline(b, op) {
		b.out.State = StateStalled
	}
	b.out.Redeletes = escalationFor(b.res.Lifecycle, op).sent(waited)
	b.out.Reason = reasons[op][b.out.State]
}

// deadline is the deletion_deadline of the rule behind op (default 10m).
func (r *eventRun) deadline(b *bundle, op Operation) time.Duration {
	lc := b.res.Lifecycle
	switch {
	case lc == nil:
	case op == OpDelete && lc.Delete != nil:
		return lc.Delete.DeletionDeadline.D()
	case op != OpDelete && lc.Recreate != nil:
		return lc.Recreate.DeletionDeadline.D()
	}
	return task.DefaultDeletionDeadline
}

func (r *eventRun) fail(b *bundle, reason string, err error) {
	err = boundError(err)
	b.out.State, b.out.Reason = StateFailed, reason
	b.out.Error, b.out.err = err.Error(), err
	r.phaseError("resources", b.res.Name, err)
}

// reasonFor names the reason of a failed resource.
func reasonFor(err error) string {
	var re *renderError
	var ce *celError
	switch {
	case errors.Is(err, ErrConsumerNotRegistered):
		return ReasonConsumerNotRegistered
	case errors.Is(err, ErrUnavailable):
		return ReasonMaestroUnavailable
	case errors.As(err, &re):
		return ReasonRenderFailed
	case errors.As(err, &ce):
		return ReasonRuleFailed
	default:
		return ReasonMaestroError
	}
}
