package agentsim

import (
	"k8s.io/apimachinery/pkg/types"
	workv1 "open-cluster-management.io/api/work/v1"
)

// SpecEvent is one spec change an agent received, as its informer saw it
// (Options.OnSpec).
type SpecEvent struct {
	// Kind is "add" (a work of a name the agent did not hold), "update"
	// (a change of the held work, a deletion request included) or
	// "delete" (the work left the agent's store).
	Kind string
	// Work is the work received (for delete, the last one held). The
	// callee must not modify it.
	Work *workv1.ManifestWork
	// OldPresent: a new work arrived while the old work of this name was
	// still held: another uid, or (Maestro derives a bundle's uid from its
	// name) a work no longer deleting replacing one that was deleting. A
	// create while the old one existed. A work replacing a Redelivered copy
	// is not one (OldRedelivered).
	OldPresent bool
	// Redelivered: an add of a deleting work whose deletion this agent had
	// already confirmed (it dropped the work while deleting, and no live
	// work of that uid came since): Maestro delivered the deletion again
	// after the confirmation (a second delete request or a resync answer
	// read before Maestro removed the bundle; docs/reliability.md, issue
	// 48), and sdk-go's agent store adds a deleting work it does not hold.
	// The copy arrives deleting and without the agent's finalizer: nothing
	// is applied for it, and no one answers it unless a sweep does.
	Redelivered bool
	// OldRedelivered: this live work replaced a Redelivered copy (the
	// bundle created again after its confirmed deletion). No object of the
	// old work was held: its deletion had been confirmed.
	OldRedelivered bool
}

// specEvent classifies an informer notification; old is nil for an add,
// cur nil for a delete.
func specEvent(old, cur *workv1.ManifestWork) SpecEvent {
	switch {
	case old == nil:
		return SpecEvent{Kind: "add", Work: cur}
	case cur == nil:
		return SpecEvent{Kind: "delete", Work: old}
	case old.UID != cur.UID || (old.DeletionTimestamp != nil && cur.DeletionTimestamp == nil):
		return SpecEvent{Kind: "add", Work: cur, OldPresent: true}
	default:
		return SpecEvent{Kind: "update", Work: cur}
	}
}

// redeliveries tells a deletion delivered again after its confirmation
// (SpecEvent.Redelivered) from a work held. It is used on the informer's
// goroutine only.
type redeliveries struct {
	confirmed map[types.UID]bool // dropped while deleting, no live work since
	copies    map[types.UID]bool // the held work is a Redelivered copy
}

func newRedeliveries() *redeliveries {
	return &redeliveries{confirmed: map[types.UID]bool{}, copies: map[types.UID]bool{}}
}

// classify is specEvent with Redelivered and OldRedelivered set from what
// this agent's informer saw before.
func (r *redeliveries) classify(old, cur *workv1.ManifestWork) SpecEvent {
	e := specEvent(old, cur)
	switch {
	case cur == nil:
		delete(r.copies, old.UID)
		if old.DeletionTimestamp != nil {
			r.confirmed[old.UID] = true
		}
	case cur.DeletionTimestamp != nil:
		if old == nil && r.confirmed[cur.UID] {
			e.Redelivered = true
			r.copies[cur.UID] = true
		}
	default:
		delete(r.confirmed, cur.UID)
		if e.OldPresent && old.UID == cur.UID && r.copies[cur.UID] {
			e.OldPresent, e.OldRedelivered = false, true
		}
		delete(r.copies, cur.UID)
	}
	return e
}

// record hands the notification to Options.OnSpec, when set.
func (a *Agent) record(old, cur any) {
	if a.opts.OnSpec == nil {
		return
	}
	o, _ := old.(*workv1.ManifestWork)
	c, _ := cur.(*workv1.ManifestWork)
	if o == nil && c == nil {
		return
	}
	a.opts.OnSpec(a.seen.classify(o, c))
}
