package adapter

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/bundles"
)

// write is the one Maestro write (or none) the decision table asks for.
type write int

const (
	writeNone     write = iota
	writeCreate         // absent: create
	writeUpdate         // present, fingerprint differs: update in place
	writeDelete         // delete rule: delete, then read again
	writeRecreate       // recreate rule: delete, read again, create on 404
	writeRedelete       // deletion pending, a re-send window open: delete again, read, (recreate) create on 404
)

// reasons is the one table from what the decision reports (its Operation and
// the State the write left the bundle in) to the Reason in the outcome and in
// status conditions. A failed outcome's reason names its error instead
// (reasonFor).
var reasons = map[Operation]map[State]string{
	OpCreate:    {StateDone: ReasonCreated},
	OpUpdate:    {StateDone: ReasonUpdated},
	OpUnchanged: {StateDone: ReasonUnchanged},
	OpRecreate:  {StateDone: ReasonRecreated, StatePending: ReasonRecreationPending, StateStalled: ReasonRecreationStalled},
	OpDelete:    {StateDone: ReasonDeleted, StatePending: ReasonDeletionPending, StateStalled: ReasonDeletionStalled},
	OpSkip:      {StateDone: ReasonSkipped},
}

// observation is the authoritative read of a bundle at the start of an
// event: the ManifestWork Maestro returned, or, on the kubernetes
// transport, the object the API server returned. Both are read through
// their own metadata only (deletionTimestamp, the fingerprint annotation),
// so decide is the same for both.
type observation struct {
	work *workv1.ManifestWork       // nil when Maestro answered 404
	obj  *unstructured.Unstructured // kubernetes transport; nil on 404
	// viewObj is set when work came from the view as an object (objectView):
	// work then holds its type and metadata only, and viewObj all of it.
	viewObj map[string]any
}

// fullWork is the observed work whole, for a write that starts from it
// (update): a view hit's work is rebuilt from its object. An event decides
// a write only after reading Maestro, so this is a guard, not a path.
func (o observation) fullWork() (*workv1.ManifestWork, error) {
	if o.viewObj == nil {
		return o.work, nil
	}
	var w workv1.ManifestWork
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.viewObj, &w); err != nil {
		return nil, err
	}
	return &w, nil
}

// meta is the observed object's metadata, nil when absent.
func (o observation) meta() metav1.Object {
	switch {
	case o.work != nil:
		return o.work
	case o.obj != nil:
		return o.obj
	}
	return nil
}

func (o observation) present() bool { return o.meta() != nil }

func (o observation) deleting() bool {
	m := o.meta()
	return m != nil && m.GetDeletionTimestamp() != nil
}

func (o observation) fingerprint() string {
	if m := o.meta(); m != nil {
		return m.GetAnnotations()[bundles.FingerprintAnnotation]
	}
	return ""
}

// pendingFor is how long the observed deletion has been pending, from the
// object's own deletionTimestamp (no local state).
func (o observation) pendingFor(now time.Time) time.Duration {
	if !o.deleting() {
		return 0
	}
	d := now.Sub(o.meta().GetDeletionTimestamp().Time)
	if d < 0 {
		return 0
	}
	return d
}

// rules are the lifecycle rules of a bundle, evaluated lazily in the
// decision's order. A nil func means the rule is not configured.
type rules struct {
	createWhen   func() (bool, error)
	deleteWhen   func() (bool, error)
	recreateWhen func() (bool, error)
	// redeleteDue reports whether the observed deletion, reported as op,
	// is due to have its delete sent again: once promptly, then when
	// stalled (escalate.go). nil: never.
	redeleteDue func(op Operation) bool
	// adoptable reports whether the observed object, which carries no
	// fingerprint annotation (another writer made it: hyperfleet-adapter,
	// a person), already holds what this adapter would write (adopt.go).
	// nil: never.
	adoptable func() bool
}

// stalledWrite is the write for a bundle already being deleted: none, or
// the delete sent again when a re-send window says it is due.
func (r rules) stalledWrite(op Operation) write {
	if r.redeleteDue != nil && r.redeleteDue(op) {
		return writeRedelete
	}
	return writeNone
}

// decision is what decide chose: the operation to report and the write to
// make. For writeNone the outcome follows from what was observed: done, or
// pending/stalled while the bundle is being deleted.
type decision struct {
	op    Operation
	write write
	// adopted: op is unchanged because the observed object, without a
	// fingerprint annotation, holds the desired content (reason Adopted).
	adopted bool
}

// decide applies the decision table (docs/architecture.md); the first row
// that applies wins:
//
//	any                                  delete.when true    -> delete (unless already deleting;
//	                                                            then as the row "present, deleting")
//	present, not deleting, fp differs    recreate.when true  -> recreate (delete, read, create on 404)
//	present, deleting                    -                   -> no write, recreate pending; in a re-send
//	                                                            window (prompt, or stalled): delete
//	                                                            again, read, create on 404
//	absent                               create.when false   -> no write, skip
//	absent                               -                   -> create
//	present, fingerprint equal           -                   -> no write
//	present, no fingerprint, same content -                  -> no write (adopted)
//	present, fingerprint differs         -                   -> update in place
//
// delete.when always beats recreate.when, which is then not evaluated, and
// recreate.when is evaluated only when the observed bundle does not carry
// the desired fingerprint, so a rule that stays true cannot loop.
// create.when is evaluated only while the bundle is absent: once created,
// the bundle is reconciled whatever the rule says.
// desiredFP is computed lazily (render can be skipped on the delete path).
func decide(obs observation, desiredFP func() (string, error), r rules) (decision, error) {
	if r.deleteWhen != nil {
		del, err := r.deleteWhen()
		if err != nil {
			return decision{op: OpDelete}, err
		}
		if del {
			if !obs.present() {
				return decision{op: OpDelete, write: writeNone}, nil
			}
			if obs.deleting() {
				return decision{op: OpDelete, write: r.stalledWrite(OpDelete)}, nil
			}
			return decision{op: OpDelete, write: writeDelete}, nil
		}
	}
	if !obs.present() {
		if r.createWhen != nil {
			create, err := r.createWhen()
			if err != nil {
				return decision{op: OpCreate}, err
			}
			if !create {
				return decision{op: OpSkip, write: writeNone}, nil
			}
		}
		return decision{op: OpCreate, write: writeCreate}, nil
	}
	if obs.deleting() {
		return decision{op: OpRecreate, write: r.stalledWrite(OpRecreate)}, nil
	}
	fp, err := desiredFP()
	if err != nil {
		return decision{op: OpUpdate}, err
	}
	if obs.fingerprint() == fp {
		return decision{op: OpUnchanged, write: writeNone}, nil
	}
	if obs.fingerprint() == "" && r.adoptable != nil && r.adoptable() {
		return decision{op: OpUnchanged, write: writeNone, adopted: true}, nil
	}
	if r.recreateWhen != nil {
		rec, err := r.recreateWhen()
		if err != nil {
			return decision{op: OpRecreate}, err
		}
		if rec {
			return decision{op: OpRecreate, write: writeRecreate}, nil
		}
	}
	return decision{op: OpUpdate, write: writeUpdate}, nil
}
