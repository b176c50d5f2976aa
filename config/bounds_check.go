package config

import (
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/bundle-adapter/bundle-adapter/internal/configfile"
)

// checkBounds refuses every leaf of cfg (a pointer to AdapterConfig or
// BrokerConfig) outside its entry of table. It runs on the values in
// effect, after the file, the environment and the flags; sources names the
// environment variable or flag that set a leaf (see applyOverrides), and an
// error about such a leaf names it instead of a line of the file. An absent
// optional leaf (a nil pointer) is not checked.
func checkBounds(l *configfile.ErrorList, cfg any, table map[string]Bound, sources map[string]string) {
	root := reflect.ValueOf(cfg).Elem()
	paths := make([]string, 0, len(table))
	for p := range table {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		v, ok := leafValue(root, p)
		if !ok {
			continue
		}
		msg := table[p].check(v)
		if msg == "" {
			continue
		}
		if src, set := sources[p]; set {
			l.AddAt(p, 0, "%s (set by %s)", msg, src)
			continue
		}
		l.Add(p, "%s", msg)
	}
}

// leafValue is the leaf at a YAML path of root; false when a pointer on
// the way is nil (the leaf is absent) or the path names no field.
func leafValue(v reflect.Value, path string) (reflect.Value, bool) {
	for _, key := range strings.Split(path, ".") {
		for v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return v, false
			}
			v = v.Elem()
		}
		idx, ok := configfile.StructFields(v.Type())[key]
		if !ok {
			return v, false
		}
		v = v.FieldByIndex(idx)
	}
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return v, false
		}
		v = v.Elem()
	}
	return v, true
}

// check returns why v is out of bounds, "" when it is within.
func (b Bound) check(v reflect.Value) string {
	switch {
	case v.Type() == configfile.DurationType:
		return b.checkInt(v.Int(), formatDuration)
	case v.Kind() == reflect.String:
		n := int64(len(v.String()))
		if n > b.Max {
			return fmt.Sprintf("must be at most %d bytes (%s), not %d bytes", b.Max, b.Why, n)
		}
		if n < b.Min {
			return fmt.Sprintf("must be at least %d bytes, not %d bytes", b.Min, n)
		}
		return ""
	case v.CanInt():
		return b.checkInt(v.Int(), func(n int64) string { return strconv.FormatInt(n, 10) })
	case v.CanFloat():
		return b.checkFloat(v.Float())
	}
	return "internal: no bound check for " + v.Type().String()
}

func (b Bound) checkInt(n int64, format func(int64) string) string {
	switch {
	case n == 0 && b.Zero != "":
		return ""
	case n > b.Max:
		return fmt.Sprintf("must be at most %s (%s), not %s", format(b.Max), b.Why, format(n))
	case n < b.Min:
		return b.below(format(b.Min), format(n))
	}
	return ""
}

func (b Bound) checkFloat(f float64) string {
	switch {
	case f != f: // NaN
		return "must be a number, not NaN"
	case f == 0 && b.Zero != "":
		return ""
	case f > b.MaxF:
		return fmt.Sprintf("must be at most %g (%s), not %g", b.MaxF, b.Why, f)
	case f < b.MinF:
		return b.below(strconv.FormatFloat(b.MinF, 'g', -1, 64), strconv.FormatFloat(f, 'g', -1, 64))
	}
	return ""
}

// below is the message for a value under Min; with Zero it says what 0 means.
func (b Bound) below(lo, got string) string {
	msg := "must be at least " + lo
	if lo == "0" || lo == "0s" {
		msg = "must not be negative"
	}
	if b.Zero != "" {
		msg += " (0 means " + b.Zero + ")"
	}
	return msg + ", not " + got
}

// formatDuration writes d as a config file would: whole days as "31d",
// else Go's form without trailing zero units ("10m", "1h30m", "10m1s").
func formatDuration(n int64) string {
	d := time.Duration(n)
	if d != 0 && d%day == 0 {
		return strconv.FormatInt(int64(d/day), 10) + "d"
	}
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// splitPath splits a YAML path into its keys.
func splitPath(path string) []string { return strings.Split(path, ".") }

// lastKey is the last key of a YAML path.
func lastKey(path string) string {
	keys := splitPath(path)
	return keys[len(keys)-1]
}

// leafType is the type at a YAML path of t, pointers dereferenced.
func leafType(t reflect.Type, path string) reflect.Type {
	for _, key := range splitPath(path) {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		t = t.FieldByIndex(configfile.StructFields(t)[key]).Type
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// leafTypeOf names the kind of the leaf at path of the struct root:
// "duration", "name" (a string), "float" or "int".
func leafTypeOf(root any, path string) string {
	t := leafType(reflect.TypeOf(root), path)
	switch {
	case t == configfile.DurationType:
		return "duration"
	case t.Kind() == reflect.String:
		return "name"
	case t.Kind() == reflect.Float32 || t.Kind() == reflect.Float64:
		return "float"
	}
	return "int"
}
