package adapter

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/bundles"
	"github.com/bundle-adapter/bundle-adapter/task"
)

// bundle is one resource of the task config during one event: where it
// lives, what was observed at pre-discovery, and (once rendered) what is
// desired.
type bundle struct {
	res      *task.Resource
	consumer string
	workName string
	obs      observation
	kube     *kubeTarget // kubernetes transport; nil for a Maestro bundle

	// tree is the rendered bundle; desired is its work, decoded on first
	// use (desiredWork): an unchanged bundle never encodes its manifests.
	tree        map[string]any
	desired     *workv1.ManifestWork
	fingerprint string
	renderErr   error
	rendered    bool
	// memoed: fingerprint came from the pipeline's memo (desiredFingerprint)
	// and tree was not rendered; render renders it when a write needs it.
	memoed bool

	out Outcome
}

// reconcile runs the decision for one pre-discovered bundle and performs its
// write. It never blocks on a deletion: a pending deletion is reported and the
// next event continues where this one stopped.
func (r *eventRun) reconcile(ctx context.Context, b *bundle) {
	if b.kube != nil {
		r.reconcileKube(ctx, b)
		return
	}
	b.out = Outcome{Name: b.res.Name, Consumer: b.consumer, WorkName: b.workName}
	rules := r.rules(ctx, b)
	rules.adoptable = func() bool { return r.adoptBundle(b) }
	d, err := decide(b.obs, func() (string, error) { return r.desiredFingerprint(b) }, rules)
	b.out.Operation = d.op
	if err != nil {
		r.fail(b, reasonFor(err), err)
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
		r.create(ctx, b, OpCreate, "")
	case writeUpdate:
		r.update(ctx, b)
	case writeDelete:
		r.deleteThenRead(ctx, b, OpDelete)
	case writeRecreate:
		old := b.obs.fingerprint()
		if r.deleteThenRead(ctx, b, OpRecreate) || soakNoWait { // false but in the soak's broken build
			r.create(ctx, b, OpRecreate, old)
		}
	case writeRedelete:
		old := b.obs.fingerprint()
		if r.redeleteThenRead(ctx, b, d.op) && d.op == OpRecreate {
			r.create(ctx, b, OpRecreate, old)
		}
	}
	if d.op != OpDelete {
		// Report the desired fingerprint while a recreation is pending too
		// (rendered or remembered once per event); a render failure
		// changes nothing here (nothing is written).
		_, _ = r.desiredFingerprint(b)
	}
	r.recall(b)
	r.logOutcome(ctx, b)
}

// rules binds the bundle's lifecycle rules to this event's CEL variables.
func (r *eventRun) rules(ctx context.Context, b *bundle) rules {
	lc := b.res.Lifecycle
	out := rules{redeleteDue: func(op Operation) bool { return r.redeleteDue(b, op) }}
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

// desiredFingerprint is the fingerprint of the desired bundle, for a
// decision: remembered from an earlier render of the same inputs when the
// pipeline's memo has it (bundles.Memo), so an unchanged bundle is not
// rendered at all; otherwise rendered (and remembered when the render
// succeeds). A write renders the tree itself (render), whatever this
// returned.
func (r *eventRun) desiredFingerprint(b *bundle) (string, error) {
	if b.rendered || b.memoed {
		b.out.Fingerprint = b.fingerprint
		return b.fingerprint, b.renderErr
	}
	key, keyed := r.memoKey(b)
	if keyed {
		if fp, ok := r.p.memo.Get(key); ok {
			b.memoed, b.fingerprint, b.out.Fingerprint = true, fp, fp
			return fp, nil
		}
	}
	fp, err := r.render(b)
	if keyed && err == nil {
		r.p.memo.Put(key, fp)
	}
	return fp, err
}

// memoKey is the memo's key for b's render now (bundles.MemoKeyOf), false
// when the pipeline has no memo or b's manifest reads more than its paths.
func (r *eventRun) memoKey(b *bundle) (bundles.MemoKey, bool) {
	paths, ok := r.p.memoReads[b.res]
	if r.p.memo == nil || !ok {
		return bundles.MemoKey{}, false
	}
	return bundles.MemoKeyOf([]string{b.res.Name, b.workName, b.consumer}, paths, r.data)
}

// render renders the desired bundle once per event and returns its fingerprint.
func (r *eventRun) render(b *bundle) (string, error) {
	if b.rendered {
		// Rendered before this outcome was started (a view trial): the
		// outcome still reports the fingerprint.
		b.out.Fingerprint = b.fingerprint
		return b.fingerprint, b.renderErr
	}
	b.rendered = true
	b.tree, b.fingerprint, b.renderErr = r.renderWork(b)
	b.out.Fingerprint = b.fingerprint
	return b.fingerprint, b.renderErr
}

// renderWork renders b's tree, normalized and stamped, and its
// fingerprint. A tree that would not decode into a ManifestWork fails here
// (checkRendered), with decodeRendered's error.
func (r *eventRun) renderWork(b *bundle) (map[string]any, string, error) {
	ctx, cancel := r.renderContext()
	tree, err := bundles.RenderContext(ctx, b.res.Manifest.Compiled, r.data, r.now)
	cancel()
	if err != nil {
		return nil, "", &renderError{r.templateError(ctx, err)}
	}
	normalizeWork(tree, b.workName, b.consumer)
	fp, err := bundles.Fingerprint(tree)
	if err != nil {
		return nil, "", &renderError{err}
	}
	bundles.Stamp(tree, fp)
	if err := bundles.CheckSize(b.res.Name, tree); err != nil {
		return nil, "", &renderError{err}
	}
	if err := checkRendered(tree); err != nil {
		return nil, "", invalidWork(err)
	}
	return tree, fp, nil
}

// invalidWork is the render error of a tree that does not decode.
func invalidWork(err error) error {
	return &renderError{fmt.Errorf("rendered bundle is not a valid ManifestWork: %w", err)}
}

// desiredWork is the rendered work (render first), decoded once.
func (b *bundle) desiredWork() (*workv1.ManifestWork, error) {
	if b.desired == nil {
		work, err := decodeRendered(b.tree)
		if err != nil {
			return nil, invalidWork(err)
		}
		b.desired = work
	}
	return b.desired, nil
}

// decodeWork converts a rendered tree into a ManifestWork. Fields the type
// does not have (spec.deleteOption.gracePeriodSeconds in HyperFleet's
// examples) are dropped, as Maestro drops them, and returned as paths; the
// load warns about them (CheckWork). A value of the wrong type is an error.
func decodeWork(tree map[string]any) (*workv1.ManifestWork, []string, error) {
	var work workv1.ManifestWork
	err := runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(tree, &work, true)
	strict, isStrict := runtime.AsStrictDecodingError(err)
	if err != nil && !isStrict {
		return nil, nil, err
	}
	var dropped []string
	if isStrict {
		for _, e := range strict.Errors() {
			msg := e.Error()
			if f, ok := strings.CutPrefix(msg, `unknown field "`); ok {
				msg = strings.TrimSuffix(f, `"`)
			}
			dropped = append(dropped, msg)
		}
	}
	return &work, dropped, nil
}

// decodeRendered is decodeWork without the dropped fields, which an event
// does not report (the load warned about them): the same work and the same
// error, without the converter's unknown-field tracking (a set of matched
// keys and a path per struct), which only feeds the strict error decodeWork
// turns into the dropped paths.
func decodeRendered(tree map[string]any) (*workv1.ManifestWork, error) {
	var work workv1.ManifestWork
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(tree, &work); err != nil {
		return nil, err
	}
	return &work, nil
}

// checkRendered is decodeRendered's error (or nil) for tree, without
// encoding the manifests: the tree is decoded with its manifests list
// replaced by one of as many nulls. Converting a manifest cannot fail: a
// Manifest takes the JSON encoding of any value (runtime.RawExtension), and
// a rendered tree holds JSON values only (CheckSize has encoded it), so the
// manifests contribute no error, and every other field fails as it would.
func checkRendered(tree map[string]any) error {
	_, err := decodeRendered(withoutManifests(tree))
	return err
}

// withoutManifests is tree with spec.workload.manifests, when a list,
// replaced by a list of as many nulls; tree is not modified.
func withoutManifests(tree map[string]any) map[string]any {
	spec, _ := tree["spec"].(map[string]any)
	workload, _ := spec["workload"].(map[string]any)
	manifests, isList := workload["manifests"].([]any)
	if !isList || manifests == nil {
		return tree
	}
	return withMember(tree, "spec", withMember(spec, "workload", withMember(workload, "manifests", make([]any, len(manifests)))))
}

// withMember is a shallow copy of m with m[k] = v.
func withMember(m map[string]any, k string, v any) map[string]any {
	out := make(map[string]any, len(m))
	for mk, mv := range m {
		out[mk] = mv
	}
	out[k] = v
	return out
}

// CheckWork is the config.WorkChecker of this adapter: the fields of a
// rendered ManifestWork that decoding drops. A tree that does not decode
// at all reports nothing here; rendering the real event reports it.
func CheckWork(tree map[string]any) []string {
	_, dropped, _ := decodeWork(tree)
	return dropped
}

// normalizeWork fills what the template may leave out: kind, apiVersion,
// the name from discovery and the consumer as namespace.
func normalizeWork(tree map[string]any, name, consumer string) {
	tree["apiVersion"] = "work.open-cluster-management.io/v1"
	tree["kind"] = "ManifestWork"
	meta, _ := tree["metadata"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
		tree["metadata"] = meta
	}
	meta["name"] = name
	meta["namespace"] = consumer
}

type renderError struct{ err error }

func (e *renderError) Error() string { return "render: " + e.err.Error() }
func (e *renderError) Unwrap() error { return e.err }

// create creates the desired bundle. op is create (decide's absent row) or
// recreate (after a recreation's delete, replacing the bundle of
// fingerprint replaced). A create on the absent row that ends a recreation
// (endsRecreation) is reported recreate/done; every create that ends a
// recreation carries ReplacedAnnotation naming the bundle it replaced,
// when known. Nothing else differs: the outcome of a failed create is op's.
func (r *eventRun) create(ctx context.Context, b *bundle, op Operation, replaced string) {
	if _, err := r.render(b); err != nil {
		r.fail(b, reasonFor(err), err)
		return
	}
	desired, err := b.desiredWork()
	if err != nil {
		r.fail(b, reasonFor(err), err)
		return
	}
	report := op
	if op == OpCreate {
		if fp, ends := r.endsRecreation(b); ends {
			report, replaced = OpRecreate, fp
		}
	}
	// Only reached after this event's read answered 404 (decide's absent
	// row, or the read after a recreation's delete).
	created, err := r.p.maestro.Create(WithReadAbsent(ctx), b.consumer, withReplaced(desired, replaced))
	switch {
	case err == nil:
		r.observe(b, created)
		r.done(b, report)
		if report != op {
			r.log.Info("the create ends a recreation", "bundle", b.res.Name,
				"consumer", b.consumer, "work", b.workName, "replaced", replaced)
		}
	case op == OpRecreate && errors.Is(err, ErrAlreadyExists):
		// Another replica, or a slow agent, still holds the old bundle: never
		// create while it exists; the next event continues.
		r.pending(b, OpRecreate, 0)
	default:
		r.fail(b, reasonFor(err), err)
	}
}

func (r *eventRun) update(ctx context.Context, b *bundle) {
	if _, err := r.render(b); err != nil {
		r.fail(b, reasonFor(err), err)
		return
	}
	base, err := b.obs.fullWork()
	if err != nil {
		r.fail(b, reasonFor(err), err)
		return
	}
	desired, err := b.desiredWork()
	if err != nil {
		r.fail(b, reasonFor(err), err)
		return
	}
	updated, err := r.p.maestro.Update(ctx, b.consumer, base, desired)
	if err != nil {
		r.fail(b, reasonFor(err), err)
		return
	}
	r.observe(b, updated)
	r.done(b, OpUpdate)
}

// deleteThenRead sends a fire-and-forget delete and reads the bundle again.
// It reports true when Maestro answered 404 (the bundle is gone); otherwise
// the outcome is set to pending (or failed).
func (r *eventRun) deleteThenRead(ctx context.Context, b *bundle, op Operation) bool {
	err := r.p.maestro.Delete(ctx, b.consumer, b.workName)
	if err != nil && !errors.Is(err, ErrNotFound) {
		r.fail(b, reasonFor(err), err)
		return false
	}
	return r.readAfterDelete(ctx, b, op)
}

// readAfterDelete reads the bundle after a delete: true on 404, otherwise
// the outcome is pending, stalled or failed.
func (r *eventRun) readAfterDelete(ctx context.Context, b *bundle, op Operation) bool {
	after, err := r.p.maestro.Get(ctx, b.consumer, b.workName)
	switch {
	case errors.Is(err, ErrNotFound):
		r.observe(b, nil)
		if op == OpDelete {
			r.done(b, OpDelete)
		}
		return true
	case err != nil:
		r.fail(b, reasonFor(err), err)
		return false
	}
	r.observe(b, after)
	r.reportObserved(b, op)
	return false
}

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
	b.out.State, b.out.Reason = StateFailed, reason
	b.out.Error, b.out.err = err.Error(), err
	r.phaseError("resources", b.res.Name, err)
}

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

func (r *eventRun) logOutcome(ctx context.Context, b *bundle) {
	level := slog.LevelInfo
	if b.out.err != nil {
		level = slog.LevelWarn
	}
	r.log.Log(ctx, level, "bundle reconciled",
		"bundle", b.res.Name, "consumer", b.consumer, "work", b.workName,
		"operation", b.out.Operation, "state", b.out.State, "reason", b.out.Reason,
		"pending_seconds", b.out.PendingSeconds, "error", b.out.Error)
}
