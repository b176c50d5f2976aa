package config

import (
	"github.com/bundle-adapter/bundle-adapter/internal/configfile"
	"github.com/bundle-adapter/bundle-adapter/task"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The escalation of a stalled deletion is bounded at load: a count past
// MaxRedeletes, a negative one, a negative window and one that would let the
// periods' windows touch are refused with file, line and path.
func TestRedeleteBoundsRefused(t *testing.T) {
	_, err := LoadTaskConfig(filepath.Join("testdata", "broken", "redelete.yaml"))
	assertErrors(t, err, []string{
		`redelete.yaml:12: resources[0].lifecycle.delete.redeletes: must be between 0 and 10 (config.MaxRedeletes), not 11`,
		`redelete.yaml:18: resources[1].lifecycle.delete.redeletes: must be between 0 and 10 (config.MaxRedeletes), not -1`,
		`redelete.yaml:24: resources[2].lifecycle.recreate.redelete_window: must be shorter than deletion_deadline (1m0s), not 1m0s`,
		`redelete.yaml:30: resources[3].lifecycle.recreate.redelete_window: must not be negative, got -5s`,
	})
	if n := strings.Count(err.Error(), "\n") + 1; n != 4 {
		t.Errorf("want exactly 4 problems, got %d:\n%v", n, err)
	}
}

// Without the keys a rule gets the documented defaults; the window never
// reaches half a short deadline; an explicit 0 turns the escalation off.
func TestRedeleteDefaults(t *testing.T) {
	zero := 0
	tests := []struct {
		name       string
		rule       task.LifecycleRule
		wantN      int
		wantWindow time.Duration
	}{
		{"defaults", task.LifecycleRule{}, task.DefaultRedeletes, task.DefaultRedeleteWindow},
		{"short deadline halves the window", task.LifecycleRule{DeletionDeadline: configfile.Duration(20 * time.Second)}, task.DefaultRedeletes, 10 * time.Second},
		{"off", task.LifecycleRule{Redeletes: &zero}, 0, task.DefaultRedeleteWindow},
		{"explicit window", task.LifecycleRule{RedeleteWindow: configfile.Duration(time.Minute)}, task.DefaultRedeletes, time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := configfile.NewErrorList("task.yaml")
			rule := tt.rule
			if rule.DeletionDeadline == 0 {
				rule.DeletionDeadline = configfile.Duration(task.DefaultDeletionDeadline)
			}
			task.CompileRedelete(l, &rule, "resources[0].lifecycle.recreate")
			if len(l.Errs) > 0 {
				t.Fatal(l.Errs)
			}
			if *rule.Redeletes != tt.wantN || rule.RedeleteWindow.D() != tt.wantWindow {
				t.Errorf("redeletes %d, window %s; want %d, %s", *rule.Redeletes, rule.RedeleteWindow, tt.wantN, tt.wantWindow)
			}
		})
	}
}
