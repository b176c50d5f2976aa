package adapter

import (
	"context"

	workv1 "open-cluster-management.io/api/work/v1"
)

// BundleView is an optional, watch-fed view of this source's bundles
// (maestroclient/view implements it). The pipeline trusts it for one
// decision only: when every Maestro bundle of an event is in the view and
// each would be decided unchanged, the event makes no Maestro request (a
// task's Kubernetes objects are read as always; see viewCanServe for the
// order a mixed task needs). Any miss, and any other decision, reads
// Maestro first, exactly as without a view.
//
// Lookup returns the bundle exactly as a Maestro read returned it (status
// possibly newer), and ok true only when the implementation trusts it now:
// present, not being deleted, fresh. The returned work must not be
// modified.
type BundleView interface {
	Lookup(consumer, name string) (work *workv1.ManifestWork, ok bool)
}

// objectView is a BundleView that also returns a bundle directly as the
// unstructured object observe would make of Lookup's work
// (runtime.DefaultUnstructuredConverter.ToUnstructured), the caller's own:
// a hit then decodes each bundle once instead of into a typed work and
// again into the object CEL sees. maestroclient/view implements it.
type objectView interface {
	LookupObject(consumer, name string) (obj map[string]any, ok bool)
}

// viewed is a bundle as the view returned it: the work decide reads (only
// its metadata, on a hit) and, from an objectView, the object CEL sees.
type viewed struct {
	work *workv1.ManifestWork
	obj  map[string]any
}

// lookup is the view's bundle, from LookupObject when the view has it.
// From an object, the work holds its type and metadata only: all that
// decide and an unchanged outcome read; any other decision reads Maestro.
func (r *eventRun) lookup(consumer, name string) (viewed, bool) {
	ov, ok := r.p.view.(objectView)
	if !ok {
		w, ok := r.p.view.Lookup(consumer, name)
		return viewed{work: w}, ok
	}
	obj, ok := ov.LookupObject(consumer, name)
	if !ok {
		return viewed{}, false
	}
	w := &workv1.ManifestWork{}
	w.APIVersion, _ = obj["apiVersion"].(string)
	w.Kind, _ = obj["kind"].(string)
	if m, isMap := obj["metadata"].(map[string]any); isMap {
		if err := objectMeta(m, &w.ObjectMeta); err != nil {
			return viewed{}, false
		}
	}
	return viewed{work: w, obj: obj}, true
}

// ViewUse says how an event's pre-discovery used the view.
type ViewUse string

// ViewUse values. ViewNone: no view configured, or no bundle to read.
const (
	ViewNone ViewUse = ""
	// ViewHit: every bundle came from the view and was unchanged; no read.
	ViewHit ViewUse = "hit"
	// ViewMiss: the view lacked a bundle or a decision was not unchanged;
	// the event read Maestro.
	ViewMiss ViewUse = "miss"
)

// discoverFromView serves the event's pre-discovery from the view when the
// view trusts every bundle to read and each would be decided unchanged,
// in config order, with the rules seeing the view's bundles as they would
// see a read's. Otherwise it reports false and leaves the event as it
// found it (the rendered bundles excepted: rendering does not depend on
// what was observed), and the caller reads Maestro.
func (r *eventRun) discoverFromView(ctx context.Context, bs []*bundle) bool {
	if r.p.view == nil {
		return false
	}
	works := make([]*workv1.ManifestWork, len(bs))
	objs := make([]map[string]any, len(bs))
	looked := false
	for i, b := range bs {
		if b.out.State == StateFailed {
			continue
		}
		looked = true
		v, ok := r.lookup(b.consumer, b.workName)
		if !ok {
			r.result.View = ViewMiss
			return false
		}
		works[i], objs[i] = v.work, v.obj
	}
	if !looked {
		return false
	}
	for i, b := range bs {
		if works[i] != nil {
			r.observe(b, observation{work: works[i], viewObj: objs[i]})
		}
	}
	if r.allUnchanged(ctx, bs, works) {
		r.result.View = ViewHit
		return true
	}
	r.result.View = ViewMiss
	return false
}

// allUnchanged decides every bundle as reconcile would, in order, with each
// earlier bundle's outcome visible to later rules as reconcile leaves it.
// It reports whether all are unchanged; if not, it undoes what it changed
// (observations, outcomes CEL sees).
func (r *eventRun) allUnchanged(ctx context.Context, bs []*bundle, works []*workv1.ManifestWork) bool {
	saved := make(map[string]any, len(bs))
	for _, b := range bs {
		saved[b.res.Name] = r.bundles[b.res.Name]
	}
	ok := true
	for i, b := range bs {
		if works[i] == nil {
			r.bundles[b.res.Name] = b.out.celValue()
			continue
		}
		d, err := decide(b.obs, func() (string, error) { return b.t.desiredFingerprint(r, b) }, r.rules(ctx, b))
		if err != nil || d.op != OpUnchanged {
			ok = false
			break
		}
		out := Outcome{Name: b.res.Name, Consumer: b.consumer, WorkName: b.workName,
			Operation: OpUnchanged, State: StateDone, Reason: reasons[OpUnchanged][StateDone], Fingerprint: b.fingerprint}
		if d.adopted {
			out.Reason = ReasonAdopted
		}
		r.bundles[b.res.Name] = out.celValue()
	}
	if ok {
		return true
	}
	for i, b := range bs {
		if v, had := saved[b.res.Name]; had && v != nil {
			r.bundles[b.res.Name] = v
		} else {
			delete(r.bundles, b.res.Name)
		}
		if works[i] != nil {
			r.observe(b, observation{})
			// The trial's render is kept (it does not depend on what was
			// observed), but the outcome starts as resolve left it.
			b.out.Fingerprint = ""
		}
	}
	return false
}
