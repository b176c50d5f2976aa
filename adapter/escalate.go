package adapter

import (
	"context"
	"errors"
	"time"

	"github.com/bundle-adapter/bundle-adapter/task"
)

// escalation re-sends the delete of a deletion the agent has not confirmed:
// an agent can lose a deletion (sdk-go's agent store race: a status patch
// racing the delete overwrites the work's deletionTimestamp) and then never
// confirms it, and at the work's next periodic requeue (every 4-6 min) it
// applies the deleted objects again; Maestro delivers a second delete to the
// agent, which then deletes and confirms (docs/reliability.md).
//
// Two kinds of re-send, both by the events whose deletion age falls in a
// window:
//
//   - the prompt one (attempt 0), one window after the delete:
//     age ∈ [window, min(2·window, deadline)). It reaches the agent before
//     its requeue would apply a lost deletion's objects again (seen on the
//     real agent 46 s after the delete); to an agent that holds the
//     deletion it is a no-op (the store copies the deletionTimestamp it
//     already has).
//   - the escalation of a stalled deletion (attempts 1..attempts): period k
//     begins when the age reaches k·deadline, and
//     age ∈ [k·deadline, k·deadline + window).
//
// It keeps no state. Everything is derived from the deletion's age, which
// every replica reads from the bundle's own deletionTimestamp (Maestro keeps
// the first one, re-sent deletes included).
//
// Why this is bounded: past attempts·deadline + window no event sends
// anything, whatever happens; within one window only the events of the
// resource processed in it send, and each event is processed by one replica
// (replicas compete for one queue, a restart creates no event), so neither
// replicas nor restarts multiply the deletes: Sentinel's resend interval
// (about 10 s for an unreconciled resource) against the window (default
// 15 s) gives one or two per window. Because window < deadline (checked at
// load) and the prompt window ends by the deadline, two windows never share
// an event. redeletes: 0 turns both off.
type escalation struct {
	deadline time.Duration // deletion_deadline: the period
	window   time.Duration // redelete_window
	attempts int           // redeletes: 0 turns escalation off
}

// escalationFor is the escalation of the rule behind op; a deleting bundle
// without a rule gets the defaults.
func escalationFor(lc *task.Lifecycle, op Operation) escalation {
	rule := (*task.LifecycleRule)(nil)
	switch {
	case lc == nil:
	case op == OpDelete:
		rule = lc.Delete
	default:
		rule = lc.Recreate
	}
	e := escalation{deadline: task.DefaultDeletionDeadline, attempts: task.DefaultRedeletes}
	if rule != nil {
		// A loaded rule has every field set; one built by hand may not.
		if rule.DeletionDeadline > 0 {
			e.deadline = rule.DeletionDeadline.D()
		}
		if rule.Redeletes != nil {
			e.attempts = *rule.Redeletes
		}
		e.window = rule.RedeleteWindow.D()
	}
	if e.window <= 0 {
		e.window = min(task.DefaultRedeleteWindow, e.deadline/2)
	}
	return e
}

// due reports whether a deletion of this age is in a re-send window, and
// which: 0 for the prompt one, k (1-based) for the escalation's attempt k.
func (e escalation) due(age time.Duration) (attempt int, ok bool) {
	if e.attempts <= 0 || e.deadline <= 0 || e.window <= 0 {
		return 0, false
	}
	if age >= e.window && age < min(2*e.window, e.deadline) {
		return 0, true
	}
	if age < e.deadline {
		return 0, false
	}
	k := int(age / e.deadline)
	if k > e.attempts || age-time.Duration(k)*e.deadline >= e.window {
		return 0, false
	}
	return k, true
}

// sent is how many re-sends have begun by this age (Outcome.Redeletes):
// the prompt one once the age reaches the window, and the attempts whose
// period has started, at most attempts. A window that held no event counts
// too: it was due, and the outcome says how far the re-sends went, not how
// many requests one replica made.
func (e escalation) sent(age time.Duration) int {
	if e.attempts <= 0 || e.deadline <= 0 || e.window <= 0 || age < e.window {
		return 0
	}
	return 1 + min(int(age/e.deadline), e.attempts)
}

// redeleteDue binds the escalation to a bundle observed at this event.
func (r *eventRun) redeleteDue(b *bundle, op Operation) bool {
	_, ok := escalationFor(b.res.Lifecycle, op).due(b.obs.pendingFor(r.now))
	return ok
}

// redeleteThenRead sends the delete of a pending deletion again and reads
// the bundle: 404 means the agent confirmed meanwhile, so a recreation
// creates now (never before Maestro answers 404). Otherwise the outcome is
// pending or stalled as before, and the next attempt waits for its period.
func (r *eventRun) redeleteThenRead(ctx context.Context, b *bundle, op Operation) bool {
	age := b.obs.pendingFor(r.now)
	attempt, _ := escalationFor(b.res.Lifecycle, op).due(age)
	msg := "stalled deletion: delete sent again"
	if attempt == 0 {
		msg = "deletion not confirmed yet: delete sent again once"
	}
	r.log.Warn(msg,
		"bundle", b.res.Name, "consumer", b.consumer, "work", b.workName, "operation", op,
		"attempt", attempt, "pending_seconds", int64(age/time.Second))
	rd, ok := b.t.(redeleter)
	if !ok {
		return false // never: redeleteDue is bound only for a redeleter
	}
	err := rd.redelete(ctx, r, b)
	if err != nil && !errors.Is(err, ErrNotFound) {
		r.fail(b, b.t.reason(err), err)
		return false
	}
	return r.readAfterDelete(ctx, b, op)
}
