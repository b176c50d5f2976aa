package adapter

import (
	"context"
	"errors"
)

// Reasons of a failed kubernetes resource (the decision's own reasons are
// those of the reasons table, shared with Maestro bundles).
const (
	ReasonKubernetesUnavailable = "KubernetesUnavailable"
	ReasonKubernetesError       = "KubernetesError"
)

// DefaultPropagation is the propagation of a kubernetes resource's delete
// when its rule names none.
const DefaultPropagation = "Background"

// reconcileKube runs the decision for one pre-discovered kubernetes
// resource and performs its write over the API server: create -> Create,
// update -> Apply (server-side apply), delete -> Delete then Get,
// recreate -> Delete, Get, and Create only on 404. As for a bundle it
// never waits for a deletion.
func (r *eventRun) reconcileKube(ctx context.Context, b *bundle) {
	rules := r.rules(ctx, b)
	// The API server keeps a deletion until the object's finalizers are
	// gone; sending the delete again cannot help, unlike Maestro's lost
	// deletions (escalate.go), so a stalled object is only reported.
	rules.redeleteDue = nil
	rules.adoptable = func() bool { return r.adoptObject(b) }
	d, err := decide(b.obs, func() (string, error) { return b.fingerprint, b.renderErr }, rules)
	b.out.Operation = d.op
	if err != nil {
		r.fail(b, kubeReasonFor(err), err)
		r.logOutcome(ctx, b)
		return
	}
	switch d.write {
	case writeNone:
		r.reportObserved(b, d.op)
		r.markAdopted(b, d)
		if d.op == OpSkip {
			r.creationSkipped(b)
		}
	case writeCreate:
		r.kubeCreate(ctx, b, OpCreate)
	case writeUpdate:
		r.kubeApply(ctx, b)
	case writeDelete:
		r.kubeDeleteThenRead(ctx, b, OpDelete)
	case writeRecreate:
		if r.kubeDeleteThenRead(ctx, b, OpRecreate) {
			r.kubeCreate(ctx, b, OpRecreate)
		}
	}
	r.logOutcome(ctx, b)
}

func (r *eventRun) kubeCreate(ctx context.Context, b *bundle, op Operation) {
	created, err := r.p.kube.Create(ctx, b.kube.desired.DeepCopy())
	switch {
	case err == nil:
		r.observeKube(b, created)
		r.done(b, op)
	case op == OpRecreate && errors.Is(err, ErrAlreadyExists):
		// The old object is still there (another replica, a finalizer
		// added meanwhile): never create while it exists.
		r.pending(b, OpRecreate, 0)
	default:
		r.fail(b, kubeReasonFor(err), err)
	}
}

func (r *eventRun) kubeApply(ctx context.Context, b *bundle) {
	applied, err := r.p.kube.Apply(ctx, b.kube.desired.DeepCopy())
	if err != nil {
		r.fail(b, kubeReasonFor(err), err)
		return
	}
	r.observeKube(b, applied)
	r.done(b, OpUpdate)
}

// kubeDeleteThenRead deletes the observed object (fire-and-forget, with
// the rule's propagation) and reads it again: true when the API server
// answered 404; otherwise the outcome is pending (a finalizer holds it) or
// failed.
func (r *eventRun) kubeDeleteThenRead(ctx context.Context, b *bundle, op Operation) bool {
	ref := b.kube.seen
	err := r.p.kube.Delete(ctx, ref, r.propagation(b, op))
	if err != nil && !errors.Is(err, ErrNotFound) {
		r.fail(b, kubeReasonFor(err), err)
		return false
	}
	after, err := r.p.kube.Get(ctx, ref)
	switch {
	case errors.Is(err, ErrNotFound):
		r.observeKube(b, nil)
		if op == OpDelete {
			r.done(b, OpDelete)
		}
		return true
	case err != nil:
		r.fail(b, kubeReasonFor(err), err)
		return false
	}
	r.observeKube(b, after)
	r.reportObserved(b, op)
	return false
}

// propagation is the propagation_policy of the rule behind op, default
// Background.
func (r *eventRun) propagation(b *bundle, op Operation) string {
	lc, p := b.res.Lifecycle, ""
	switch {
	case lc == nil:
	case op == OpDelete && lc.Delete != nil:
		p = lc.Delete.PropagationPolicy
	case op == OpRecreate && lc.Recreate != nil:
		p = lc.Recreate.PropagationPolicy
	}
	if p == "" {
		return DefaultPropagation
	}
	return p
}

// kubeReasonFor names the reason of a failed kubernetes resource.
func kubeReasonFor(err error) string {
	switch reason := reasonFor(err); reason {
	case ReasonMaestroUnavailable:
		return ReasonKubernetesUnavailable
	case ReasonMaestroError, ReasonConsumerNotRegistered:
		return ReasonKubernetesError
	default:
		return reason
	}
}
