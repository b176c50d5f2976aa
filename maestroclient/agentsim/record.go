package agentsim

import (
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
	// create while the old one existed.
	OldPresent bool
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
	a.opts.OnSpec(specEvent(o, c))
}
