package adapter

import (
	"testing"
	"time"

	"github.com/bundle-adapter/bundle-adapter/internal/configfile"
	"github.com/bundle-adapter/bundle-adapter/task"
)

// due opens one window per period, only for attempts 1..N, each ending
// before the next period begins; sent counts the periods begun, at most N.
func TestEscalationWindows(t *testing.T) {
	e := escalation{deadline: 10 * time.Minute, window: 15 * time.Second, attempts: 3}
	tests := []struct {
		age         time.Duration
		wantAttempt int
		wantDue     bool
		wantSent    int
	}{
		{0, 0, false, 0},
		{10*time.Minute - time.Second, 0, false, 0},
		{10 * time.Minute, 1, true, 1},
		{10*time.Minute + 14*time.Second, 1, true, 1},
		{10*time.Minute + 15*time.Second, 0, false, 1},
		{19 * time.Minute, 0, false, 1},
		{20*time.Minute + time.Second, 2, true, 2},
		{30 * time.Minute, 3, true, 3},
		{40 * time.Minute, 0, false, 3}, // a 4th period: beyond attempts
		{400 * time.Minute, 0, false, 3},
	}
	for _, tt := range tests {
		attempt, due := e.due(tt.age)
		if attempt != tt.wantAttempt || due != tt.wantDue {
			t.Errorf("due(%s) = %d, %v; want %d, %v", tt.age, attempt, due, tt.wantAttempt, tt.wantDue)
		}
		if got := e.sent(tt.age); got != tt.wantSent {
			t.Errorf("sent(%s) = %d, want %d", tt.age, got, tt.wantSent)
		}
	}
	off := escalation{deadline: 10 * time.Minute, window: 15 * time.Second}
	for _, age := range []time.Duration{10 * time.Minute, 20 * time.Minute} {
		if _, due := off.due(age); due || off.sent(age) != 0 {
			t.Errorf("redeletes: 0 must never escalate (age %s)", age)
		}
	}
}

// escalationFor takes the rule behind the operation and fills what a rule
// built without loading leaves out, never a zero window or deadline.
func TestEscalationFor(t *testing.T) {
	one := 1
	lc := &task.Lifecycle{
		Delete:   &task.LifecycleRule{DeletionDeadline: configfile.Duration(20 * time.Second), Redeletes: &one},
		Recreate: &task.LifecycleRule{DeletionDeadline: configfile.Duration(time.Minute)},
	}
	tests := []struct {
		name string
		lc   *task.Lifecycle
		op   Operation
		want escalation
	}{
		{"no lifecycle: defaults", nil, OpRecreate, escalation{deadline: 10 * time.Minute, window: 15 * time.Second, attempts: 3}},
		{"recreate rule", lc, OpRecreate, escalation{deadline: time.Minute, window: 15 * time.Second, attempts: 3}},
		{"delete rule, short deadline", lc, OpDelete, escalation{deadline: 20 * time.Second, window: 10 * time.Second, attempts: 1}},
	}
	for _, tt := range tests {
		if got := escalationFor(tt.lc, tt.op); got != tt.want {
			t.Errorf("%s: %+v, want %+v", tt.name, got, tt.want)
		}
	}
}
