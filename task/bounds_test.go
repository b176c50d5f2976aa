package task

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/bundle-adapter/bundle-adapter/celenv"
	"github.com/bundle-adapter/bundle-adapter/internal/configfile"
	"github.com/bundle-adapter/bundle-adapter/tmpl"
)

// Every numeric leaf a task config file can set (int, uint, float or a
// duration, reached through its YAML-decoded fields) has a bound in
// taskBounds, and every entry names a field that exists: a number added to
// the task config without a bound fails here (issue 28, "bounds are
// declared once", for the third config file).
func TestEveryTaskNumberHasABound(t *testing.T) {
	found := map[string]bool{}
	var walk func(typ reflect.Type, seen map[reflect.Type]bool)
	walk = func(typ reflect.Type, seen map[reflect.Type]bool) {
		for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice || typ.Kind() == reflect.Map {
			typ = typ.Elem()
		}
		if typ.Kind() != reflect.Struct || seen[typ] {
			return
		}
		// The leaves of the two languages hold source text, not numbers.
		if typ == reflect.TypeFor[celenv.Expr]() || typ == reflect.TypeFor[tmpl.Text]() {
			return
		}
		seen[typ] = true
		for i := range typ.NumField() {
			f := typ.Field(i)
			if !f.IsExported() || f.Tag.Get("yaml") == "-" {
				continue
			}
			if f.Anonymous {
				walk(f.Type, seen)
				continue
			}
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			key := typ.Name() + "." + f.Name
			switch {
			case ft == reflect.TypeFor[configfile.Duration](),
				ft.Kind() >= reflect.Int && ft.Kind() <= reflect.Float64:
				found[key] = true
				if _, ok := taskBounds[key]; !ok {
					t.Errorf("%s (%s) is a number of the task config without a bound in taskBounds", key, f.Type)
				}
			default:
				walk(f.Type, seen)
			}
		}
	}
	walk(reflect.TypeFor[TaskConfig](), map[reflect.Type]bool{})
	for key := range taskBounds {
		if !found[key] {
			t.Errorf("taskBounds names %s, which is no numeric field of the task config", key)
		}
	}
}

// A number past its bound is refused at load with the path, the bound and
// why.
func TestTaskBoundsRefused(t *testing.T) {
	for _, tc := range []struct {
		field string
		v     int64
		want  string
	}{
		{"APICall.Timeout", int64(1000 * time.Hour), "must be between 0s and 10m0s (task.MaxAPICallTimeout), not 1000h0m0s"},
		{"APICall.Timeout", -1, "must be between 0s and 10m0s (task.MaxAPICallTimeout), not -1ns"},
		{"LifecycleRule.DeletionDeadline", int64(200 * time.Hour), "must be between 0s and 168h0m0s (task.MaxDeletionDeadline), not 200h0m0s"},
		{"LifecycleRule.Redeletes", 11, "must be between 0 and 10 (config.MaxRedeletes), not 11"},
		{"APICall.RetryAttempts", -1, "must be between 0 and 20 (config.MaxRetryAttempts), not -1"},
	} {
		l := configfile.NewErrorList("t.yaml")
		if checkBound(l, "x", tc.field, tc.v) {
			t.Errorf("%s = %d: accepted", tc.field, tc.v)
		}
		if err := l.Result(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s = %d: %v, want %q", tc.field, tc.v, err, tc.want)
		}
	}
	l := configfile.NewErrorList("t.yaml")
	if !checkBound(l, "x", "APICall.Timeout", int64(MaxAPICallTimeout)) || l.Result() != nil {
		t.Errorf("the bound itself is refused: %v", l.Result())
	}
}
