package task

import (
	"fmt"
	"time"

	"github.com/bundle-adapter/bundle-adapter/internal/configfile"
)

// Bounds of the task config's numbers. A value past them is refused at
// load, so validate and serve (which load the same way) refuse it alike.
const (
	// MaxAPICallTimeout bounds an api_call's timeout: one HTTP request of
	// an event never waits longer (the event as a whole is bounded by the
	// broker config's subscriber.event_timeout, at most 30m).
	MaxAPICallTimeout = 10 * time.Minute
	// MaxDeletionDeadline bounds a lifecycle rule's deletion_deadline (and
	// so its redelete_window): a deletion pending for a week is stalled
	// whatever the rule says.
	MaxDeletionDeadline = 7 * 24 * time.Hour
)

// bound is the range of one numeric leaf, and why it ends there.
type bound struct {
	Min, Max int64
	Why      string
	duration bool // print as durations
}

// taskBounds are the bounds of every numeric leaf of a task config, by the
// Go type and field that holds it; TestEveryTaskNumberHasABound fails on
// a numeric field without an entry.
var taskBounds = map[string]bound{
	"APICall.Timeout":                {0, int64(MaxAPICallTimeout), "task.MaxAPICallTimeout", true},
	"APICall.RetryAttempts":          {0, configfile.MaxRetryAttempts, "config.MaxRetryAttempts", false},
	"LifecycleRule.DeletionDeadline": {0, int64(MaxDeletionDeadline), "task.MaxDeletionDeadline", true},
	"LifecycleRule.RedeleteWindow":   {0, int64(MaxDeletionDeadline), "task.MaxDeletionDeadline", true},
	"LifecycleRule.Redeletes":        {0, MaxRedeletes, "config.MaxRedeletes", false},
}

// checkBound refuses v at path when it is outside field's bound
// (taskBounds). It reports whether v is within.
func checkBound(l *configfile.ErrorList, path, field string, v int64) bool {
	b, ok := taskBounds[field]
	if !ok {
		panic("task: no bound for " + field)
	}
	if v >= b.Min && v <= b.Max {
		return true
	}
	show := func(n int64) string {
		if b.duration {
			return configfile.Duration(n).String()
		}
		return fmt.Sprint(n)
	}
	l.Add(path, "must be between %s and %s (%s), not %s", show(b.Min), show(b.Max), b.Why, show(v))
	return false
}
