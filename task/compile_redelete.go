package task

import (
	"github.com/bundle-adapter/bundle-adapter/internal/configfile"
	"time"
)

// DefaultRedeletes is how many times a stalled deletion's delete is sent
// again when a lifecycle rule does not say (redeletes). With the default
// 10m deadline the last attempt goes out 30 minutes after the first delete.
const DefaultRedeletes = 3

// MaxRedeletes bounds redeletes: an agent that did not act on this many
// re-sent deletions needs an operator, not more of them.
const MaxRedeletes = 10

// DefaultRedeleteWindow is how long after a deadline period begins an
// event still sends that period's delete again (redelete_window); the
// prompt re-send of an unconfirmed delete is due from one window after the
// delete for one window (adapter/escalate.go). Sentinel
// resends an unreconciled resource about every 10 s, so a 15 s window
// normally holds one or two events of the resource: the attempt is
// neither missed nor sent many times.
const DefaultRedeleteWindow = 15 * time.Second

// compileRedelete defaults and checks the escalation of a stalled deletion.
// The window must be shorter than the deadline: otherwise the windows of
// consecutive periods touch and every event would send a delete.
func CompileRedelete(l *configfile.ErrorList, rule *LifecycleRule, path string) {
	if rule.Redeletes == nil {
		n := DefaultRedeletes
		rule.Redeletes = &n
	}
	checkBound(l, path+".redeletes", "LifecycleRule.Redeletes", int64(*rule.Redeletes))
	if rule.RedeleteWindow == 0 {
		rule.RedeleteWindow = configfile.Duration(min(DefaultRedeleteWindow, rule.DeletionDeadline.D()/2))
	}
	if rule.RedeleteWindow >= rule.DeletionDeadline {
		l.Add(path+".redelete_window", "must be shorter than deletion_deadline (%s), not %s: each period's re-sent delete must end before the next period begins",
			rule.DeletionDeadline, rule.RedeleteWindow)
	}
}
