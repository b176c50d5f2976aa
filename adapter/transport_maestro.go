package adapter

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/bundles"
)

// maestroTransport delivers a task's resources as ManifestWork bundles
// through Maestro (Pipeline.maestro). Its targets can also send a stalled
// deletion again (redeleter), are remembered across a recreation
// (recreationKeyed, tombstoned), and can be served by the bundle view
// (view.go).
type maestroTransport struct{}

// maestroTarget is one bundle during one event: addressed by b.consumer
// and b.workName; tree is its rendered work and desired that work decoded
// on first use (desiredWork), so an unchanged bundle never encodes its
// manifests.
type maestroTarget struct {
	tree    map[string]any
	desired *workv1.ManifestWork
	// memoed: b.fingerprint came from the pipeline's memo and tree was not
	// rendered; render renders it when a write needs it.
	memoed bool
}

// resolve renders the bundle's consumer and name.
func (maestroTransport) resolve(r *eventRun, b *bundle) error {
	b.t = &maestroTarget{}
	res := b.res
	var err error
	if b.consumer, err = r.template(&res.Transport.Maestro.TargetCluster); err == nil {
		b.workName, err = r.execute(res.WorkName())
	}
	b.out.Consumer, b.out.WorkName = b.consumer, b.workName
	if err == nil && (b.consumer == "" || b.workName == "") {
		err = fmt.Errorf("target cluster %q and bundle name %q must both be non-empty", b.consumer, b.workName)
	}
	return err
}

// read is the event's one authoritative read of its bundles
// (pre-discovery): from the view when it serves them all unchanged
// (discoverFromView), otherwise one GetBundles request for all of them, or
// one Get when there is only one. A failed read fails the bundles it was
// for.
func (maestroTransport) read(ctx context.Context, r *eventRun, bs []*bundle) {
	if r.p.viewServes && r.discoverFromView(ctx, bs) {
		return
	}
	var todo []*bundle
	for _, b := range bs {
		if b.out.State != StateFailed {
			todo = append(todo, b)
		}
	}
	if len(todo) > 1 {
		r.readBatch(ctx, todo)
		return
	}
	for _, b := range todo {
		work, err := r.p.maestro.Get(ctx, b.consumer, b.workName)
		if err != nil && !errors.Is(err, ErrNotFound) {
			r.fail(b, b.t.reason(err), err)
			continue
		}
		r.observe(b, observation{work: work})
	}
}

func (r *eventRun) readBatch(ctx context.Context, bs []*bundle) {
	keys := make([]BundleKey, len(bs))
	for i, b := range bs {
		keys[i] = BundleKey{Consumer: b.consumer, Name: b.workName}
	}
	works, err := r.p.maestro.GetBundles(ctx, keys)
	if err == nil && len(works) != len(bs) {
		err = fmt.Errorf("%w: %d bundles read for %d keys", ErrInvalid, len(works), len(bs))
	}
	for i, b := range bs {
		if err != nil {
			r.fail(b, b.t.reason(err), err)
			continue
		}
		r.observe(b, observation{work: works[i]})
	}
}

// desiredFingerprint is the fingerprint of the desired bundle, for a
// decision: remembered from an earlier render of the same inputs when the
// pipeline's memo has it (bundles.Memo), so an unchanged bundle is not
// rendered at all; otherwise rendered (and remembered when the render
// succeeds). A write renders the tree itself (render), whatever this
// returned.
func (t *maestroTarget) desiredFingerprint(r *eventRun, b *bundle) (string, error) {
	if b.rendered || t.memoed {
		b.out.Fingerprint = b.fingerprint
		return b.fingerprint, b.renderErr
	}
	key, keyed := r.memoKey(b)
	if keyed {
		if fp, ok := r.p.memo.Get(key); ok {
			t.memoed, b.fingerprint, b.out.Fingerprint = true, fp, fp
			return fp, nil
		}
	}
	fp, err := t.render(r, b)
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
func (t *maestroTarget) render(r *eventRun, b *bundle) (string, error) {
	if !b.rendered {
		b.rendered = true
		t.tree, b.fingerprint, b.renderErr = r.renderWork(b)
	}
	b.out.Fingerprint = b.fingerprint
	return b.fingerprint, b.renderErr
}

// desiredWork is the rendered work (rendered first), decoded once.
func (t *maestroTarget) desiredWork(r *eventRun, b *bundle) (*workv1.ManifestWork, error) {
	if _, err := t.render(r, b); err != nil {
		return nil, err
	}
	if t.desired == nil {
		work, err := decodeRendered(t.tree)
		if err != nil {
			return nil, invalidWork(err)
		}
		t.desired = work
	}
	return t.desired, nil
}

func (t *maestroTarget) adoptable(r *eventRun, b *bundle) bool { return r.adoptBundle(b, t) }

// create creates the bundle. It is reached only after this event's read
// answered 404 (decide's absent row, or the read after a recreation's
// delete), which the implementation may rely on (ReadAbsent).
func (t *maestroTarget) create(ctx context.Context, r *eventRun, b *bundle, replaced string) (observation, error) {
	desired, err := t.desiredWork(r, b)
	if err != nil {
		return observation{}, err
	}
	created, err := r.p.maestro.Create(ctx, b.consumer, withReplaced(desired, replaced), ReadAbsent)
	return observation{work: created}, err
}

func (t *maestroTarget) update(ctx context.Context, r *eventRun, b *bundle) (observation, error) {
	desired, err := t.desiredWork(r, b)
	if err != nil {
		return observation{}, err
	}
	base, err := b.obs.fullWork()
	if err != nil {
		return observation{}, err
	}
	updated, err := r.p.maestro.Update(ctx, b.consumer, base, desired)
	return observation{work: updated}, err
}

func (t *maestroTarget) delete(ctx context.Context, r *eventRun, b *bundle, _ Operation) error {
	return r.p.maestro.Delete(ctx, b.consumer, b.workName)
}

func (t *maestroTarget) redelete(ctx context.Context, r *eventRun, b *bundle) error {
	return r.p.maestro.Redelete(ctx, b.consumer, b.workName)
}

func (t *maestroTarget) get(ctx context.Context, r *eventRun, b *bundle) (observation, error) {
	work, err := r.p.maestro.Get(ctx, b.consumer, b.workName)
	return observation{work: work}, err
}

func (t *maestroTarget) recreationKey(b *bundle) BundleKey {
	return BundleKey{Consumer: b.consumer, Name: b.workName}
}

// tombstone is the view's record of the last deletion of this bundle that
// the agent confirmed (Tombstones); false without a view that keeps them.
func (t *maestroTarget) tombstone(r *eventRun, b *bundle) (fingerprint string, confirmed time.Time, ok bool) {
	ts, isTS := r.p.view.(Tombstones)
	if !isTS {
		return "", time.Time{}, false
	}
	return ts.Tombstone(b.consumer, b.workName)
}

// observe records what Maestro reports for the bundle and updates what CEL
// sees: resources.<name> is the work (o.viewObj when the view already made
// its object, the event's own then), with nested discoveries promoted.
func (t *maestroTarget) observe(r *eventRun, b *bundle, o observation) {
	b.obs = o
	for _, nd := range b.res.NestedDiscoveries {
		delete(r.resources, nd.Name)
	}
	if o.work == nil {
		delete(r.resources, b.res.Name)
		return
	}
	obj := o.viewObj
	if obj == nil {
		var err error
		obj, err = runtime.DefaultUnstructuredConverter.ToUnstructured(o.work)
		if err != nil {
			r.log.Warn("cannot expose observed bundle to CEL", "bundle", b.res.Name, "error", err)
			return
		}
	}
	setWorkTypeMeta(obj)
	hideWriteID(obj)
	r.resources[b.res.Name] = obj
	for _, nd := range b.res.NestedDiscoveries {
		if m := r.nested(obj, &nd.Discovery); m != nil {
			r.resources[nd.Name] = m
		}
	}
}

// reason names a failed bundle's reason.
func (t *maestroTarget) reason(err error) string { return reasonFor(err) }
