package adapter

import (
	"context"
	"errors"
	"log/slog"

	"github.com/bundle-adapter/bundle-adapter/task"
)

// The reconcile flow of one event, written once for every transport
// (transport.go): resolve each resource, read each transport's resources
// once, then decide and write each resource in config order.

// bundle is one resource of the task config during one event: its
// transport and target, where it lives, what was observed at
// pre-discovery, and (once rendered) its desired fingerprint.
type bundle struct {
	res *task.Resource
	tr  transport
	t   target
	// consumer and workName address a Maestro bundle; a Kubernetes
	// object is addressed by its target.
	consumer string
	workName string
	obs      observation

	fingerprint string
	renderErr   error
	rendered    bool

	out Outcome
	// trace records the resource when the event is traced; nil otherwise.
	trace *TraceResource
}

// reconcileBundles pre-discovers every bundle (one read per transport for
// all of its resources; see discover), so every rule sees every bundle,
// then reconciles them in config order. A failure of one bundle is
// reported and the others still run.
func (r *eventRun) reconcileBundles(ctx context.Context) {
	bs := make([]*bundle, len(r.p.task.Resources))
	for i := range r.p.task.Resources {
		bs[i] = r.resolve(&r.p.task.Resources[i])
	}
	r.discover(ctx, bs)
	for _, b := range bs {
		bctx, span := r.p.startSpan(ctx, SpanBundle)
		if r.trace != nil {
			b.trace = &TraceResource{Discovered: traceDiscovered(b.obs), Rules: []TraceRule{}}
		}
		if b.out.State != StateFailed {
			r.reconcile(bctx, b)
		}
		endBundle(span, &b.out)
		r.result.Bundles = append(r.result.Bundles, b.out)
		r.bundles[b.res.Name] = b.out.celValue()
		if b.trace != nil {
			r.traceResource(b)
		}
	}
}

// resolve addresses a resource on its transport. One that cannot be
// addressed is failed (RenderFailed) and is not read.
func (r *eventRun) resolve(res *task.Resource) *bundle {
	b := &bundle{res: res, tr: r.p.transports[res]}
	b.out = Outcome{Name: res.Name}
	if err := b.tr.resolve(r, b); err != nil {
		r.fail(b, ReasonRenderFailed, asRenderError(err))
	}
	return b
}

// discover is the event's pre-discovery: each transport reads its
// resources once, in transportOrder.
func (r *eventRun) discover(ctx context.Context, bs []*bundle) {
	for _, tr := range transportOrder {
		var mine []*bundle
		for _, b := range bs {
			if b.tr == tr {
				mine = append(mine, b)
			}
		}
		if len(mine) > 0 {
			tr.read(ctx, r, mine)
		}
	}
}

// observe records what the transport reports for b (the zero observation:
// 404) and what CEL sees of it.
func (r *eventRun) observe(b *bundle, o observation) { b.t.observe(r, b, o) }

// reconcile runs the decision for one pre-discovered resource and performs
// its write. It never blocks on a deletion: a pending deletion is reported
// and the next event continues where this one stopped.
func (r *eventRun) reconcile(ctx context.Context, b *bundle) {
	d, err := decide(b.obs, func() (string, error) { return b.t.desiredFingerprint(r, b) }, r.rules(ctx, b))
	if b.trace != nil {
		b.traceDecision(d, err)
	}
	b.out.Operation = d.op
	if err != nil {
		r.fail(b, b.t.reason(err), err)
	} else {
		r.write(ctx, b, d)
		if d.op != OpDelete {
			// Report the desired fingerprint while a recreation is pending
			// too (rendered or remembered once per event); a render failure
			// changes nothing here (nothing is written).
			_, _ = b.t.desiredFingerprint(r, b)
		}
	}
	r.recall(b)
	r.logOutcome(ctx, b)
}

// write makes the one write (or none) the decision asks for.
func (r *eventRun) write(ctx context.Context, b *bundle, d decision) {
	switch d.write {
	case writeNone:
		r.reportObserved(b, d.op)
		r.markAdopted(b, d)
		if d.op == OpSkip {
			r.creationSkipped(b)
		}
	case writeCreate:
		r.create(ctx, b, OpCreate, "")
	case writeUpdate:
		r.update(ctx, b)
	case writeDelete:
		r.deleteThenRead(ctx, b, OpDelete)
	case writeRecreate:
		old := b.obs.fingerprint()
		if r.deleteThenRead(ctx, b, OpRecreate) {
			r.create(ctx, b, OpRecreate, old)
		}
	case writeRedelete:
		old := b.obs.fingerprint()
		if r.redeleteThenRead(ctx, b, d.op) && d.op == OpRecreate {
			r.create(ctx, b, OpRecreate, old)
		}
	}
}

// rules binds the bundle's lifecycle rules to this event's CEL variables,
// with the target's abilities: adoption, and the escalation of a stalled
// deletion for a redeleter.
func (r *eventRun) rules(ctx context.Context, b *bundle) rules {
	out := rules{adoptable: func() bool { return b.t.adoptable(r, b) }}
	if _, ok := b.t.(redeleter); ok {
		out.redeleteDue = func(op Operation) bool { return r.redeleteDue(b, op) }
	}
	lc := b.res.Lifecycle
	if lc == nil {
		return out
	}
	if lc.Create != nil {
		out.createWhen = func() (bool, error) { return r.evalRule(ctx, lc.Create.When.Compiled, "lifecycle.create.when") }
	}
	if lc.Delete != nil {
		out.deleteWhen = func() (bool, error) { return r.evalRule(ctx, lc.Delete.When.Compiled, "lifecycle.delete.when") }
	}
	if lc.Recreate != nil {
		out.recreateWhen = func() (bool, error) { return r.evalRule(ctx, lc.Recreate.When.Compiled, "lifecycle.recreate.when") }
	}
	if b.trace != nil {
		out.createWhen = traceRule(b.trace, "lifecycle.create.when", out.createWhen)
		out.deleteWhen = traceRule(b.trace, "lifecycle.delete.when", out.deleteWhen)
		out.recreateWhen = traceRule(b.trace, "lifecycle.recreate.when", out.recreateWhen)
	}
	return out
}

// creationSkipped surfaces a create gate that held a bundle back as
// HyperFleet does: adapter.resourcesSkipped is true and adapter.skipReason
// names the first bundle held back (a precondition's reason wins).
func (r *eventRun) creationSkipped(b *bundle) {
	r.adapter["resourcesSkipped"] = true
	if reason, _ := r.adapter["skipReason"].(string); reason == "" {
		r.adapter["skipReason"] = b.res.Name + ": lifecycle.create.when is false"
	}
	r.log.Info("bundle creation skipped", "bundle", b.res.Name, "reason", "lifecycle.create.when is false")
}

// create creates the desired object. op is create (decide's absent row) or
// recreate (after a recreation's delete, replacing the object of
// fingerprint replaced). A create on the absent row that ends a recreation
// (endsRecreation) is reported recreate/done and names the object it
// replaced, when known. Nothing else differs: the outcome of a failed
// create is op's. It is reached only after this event's read answered 404.
func (r *eventRun) create(ctx context.Context, b *bundle, op Operation, replaced string) {
	if _, err := b.t.desiredFingerprint(r, b); err != nil {
		r.fail(b, b.t.reason(err), err)
		return
	}
	report := op
	if op == OpCreate {
		if fp, ends := r.endsRecreation(b); ends {
			report, replaced = OpRecreate, fp
		}
	}
	created, err := b.t.create(ctx, r, b, replaced)
	switch {
	case err == nil:
		r.observe(b, created)
		r.done(b, report)
		if report != op {
			r.log.Info("the create ends a recreation", "bundle", b.res.Name,
				"consumer", b.consumer, "work", b.out.WorkName, "replaced", replaced)
		}
	case op == OpRecreate && errors.Is(err, ErrAlreadyExists):
		// Another replica, a slow agent or a finalizer still holds the old
		// object: never create while it exists; the next event continues.
		r.pending(b, OpRecreate, 0)
	default:
		r.fail(b, b.t.reason(err), err)
	}
}

// update writes the desired object over the observed one.
func (r *eventRun) update(ctx context.Context, b *bundle) {
	updated, err := b.t.update(ctx, r, b)
	if err != nil {
		r.fail(b, b.t.reason(err), err)
		return
	}
	r.observe(b, updated)
	r.done(b, OpUpdate)
}

// deleteThenRead sends a fire-and-forget delete and reads the object again.
// It reports true when the transport answered 404 (the object is gone);
// otherwise the outcome is set to pending (or failed).
func (r *eventRun) deleteThenRead(ctx context.Context, b *bundle, op Operation) bool {
	err := b.t.delete(ctx, r, b, op)
	if err != nil && !errors.Is(err, ErrNotFound) {
		r.fail(b, b.t.reason(err), err)
		return false
	}
	return r.readAfterDelete(ctx, b, op)
}

// readAfterDelete reads the object after a delete: true on 404, otherwise
// the outcome is pending, stalled or failed.
func (r *eventRun) readAfterDelete(ctx context.Context, b *bundle, op Operation) bool {
	after, err := b.t.get(ctx, r, b)
	switch {
	case errors.Is(err, ErrNotFound):
		r.observe(b, observation{})
		if op == OpDelete {
			r.done(b, OpDelete)
		}
		return true
	case err != nil:
		r.fail(b, b.t.reason(err), err)
		return false
	}
	r.observe(b, after)
	r.reportObserved(b, op)
	return false
}

// logOutcome logs how the resource ended: one line per resource and event,
// a warning when it failed (a rule's error included).
func (r *eventRun) logOutcome(ctx context.Context, b *bundle) {
	level := slog.LevelInfo
	if b.out.err != nil {
		level = slog.LevelWarn
	}
	r.log.Log(ctx, level, "bundle reconciled",
		"bundle", b.res.Name, "consumer", b.consumer, "work", b.out.WorkName,
		"operation", b.out.Operation, "state", b.out.State, "reason", b.out.Reason,
		"pending_seconds", b.out.PendingSeconds, "error", b.out.Error)
}
