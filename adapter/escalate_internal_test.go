package adapter

import (
	"testing"
	"time"

	"github.com/bundle-adapter/bundle-adapter/internal/configfile"
	"github.com/bundle-adapter/bundle-adapter/task"
)

// due opens the prompt window one window after the delete, then one window
// per period, only for attempts 1..N, each ending before the next begins;
// sent counts the windows begun, at most N+1.
func TestEscalationWindows(t *testing.T) {
	type row struct {
		age         time.Duration
		wantAttempt int
		wantDue     bool
		wantSent    int
	}
	tests := []struct {
		name string
		e    escalation
		rows []row
	}{
		{"defaults", escalation{deadline: 10 * time.Minute, window: 15 * time.Second, attempts: 3}, []row{
			{0, 0, false, 0},
			{14 * time.Second, 0, false, 0},
			{15 * time.Second, 0, true, 1}, // the prompt re-send
			{29 * time.Second, 0, true, 1},
			{30 * time.Second, 0, false, 1},
			{10*time.Minute - time.Second, 0, false, 1},
			{10 * time.Minute, 1, true, 2},
			{10*time.Minute + 14*time.Second, 1, true, 2},
			{10*time.Minute + 15*time.Second, 0, false, 2},
			{19 * time.Minute, 0, false, 2},
			{20*time.Minute + time.Second, 2, true, 3},
			{30 * time.Minute, 3, true, 4},
			{40 * time.Minute, 0, false, 4}, // a 4th period: beyond attempts
			{400 * time.Minute, 0, false, 4},
		}},
		// A window longer than half the deadline: the prompt window ends
		// where the first period begins, so no event is in two windows.
		{"prompt window cut at the deadline", escalation{deadline: 20 * time.Second, window: 15 * time.Second, attempts: 1}, []row{
			{14 * time.Second, 0, false, 0},
			{15 * time.Second, 0, true, 1},
			{19 * time.Second, 0, true, 1},
			{20 * time.Second, 1, true, 2},
			{34 * time.Second, 1, true, 2},
			{35 * time.Second, 0, false, 2},
			{40 * time.Second, 0, false, 2},
		}},
	}
	for _, tt := range tests {
		for _, r := range tt.rows {
			attempt, due := tt.e.due(r.age)
			if attempt != r.wantAttempt || due != r.wantDue {
				t.Errorf("%s: due(%s) = %d, %v; want %d, %v", tt.name, r.age, attempt, due, r.wantAttempt, r.wantDue)
			}
			if got := tt.e.sent(r.age); got != r.wantSent {
				t.Errorf("%s: sent(%s) = %d, want %d", tt.name, r.age, got, r.wantSent)
			}
		}
	}
	off := escalation{deadline: 10 * time.Minute, window: 15 * time.Second}
	for _, age := range []time.Duration{20 * time.Second, 10 * time.Minute, 20 * time.Minute} {
		if _, due := off.due(age); due || off.sent(age) != 0 {
			t.Errorf("redeletes: 0 must never send a delete again (age %s)", age)
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
