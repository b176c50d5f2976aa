package adapter

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/bundle-adapter/bundle-adapter/internal/boundedfile"
	"github.com/bundle-adapter/bundle-adapter/internal/configfile"
	"github.com/bundle-adapter/bundle-adapter/task"
)

// resolveParams binds every param in config order. A required param that is
// missing from the event, or an event value that cannot be used as its
// param (see convertParam; a required string that is empty), makes the event
// invalid (dead-lettered at once: redelivering the same event cannot help);
// other failures are reported and the event redelivered.
//
// A param that reuses an earlier param's name replaces its value only when
// it has one (hyperfleet-adapter's rule). An optional param whose expression
// fails to evaluate (not the CEL limits), or whose dotted path crosses a
// non-object, takes its default (or no value) with a warning, as in
// hyperfleet-adapter; a required one fails the event.
func (r *eventRun) resolveParams(ctx context.Context) bool {
	bound := map[string]bool{}
	for i := range r.p.task.Params {
		p := &r.p.task.Params[i]
		v, defaulted, err := r.paramValue(ctx, p)
		if err == nil {
			v, err = convertParam(p, v)
		}
		fromEvent := p.Source.Kind == task.PathEvent
		if err == nil && fromEvent && p.Required && v == "" {
			err = fmt.Errorf("required param %q is empty in the event (%s)", p.Name, p.Source.Path)
		}
		if err != nil && fromEvent {
			r.result.InvalidEvent = true
		}
		if err != nil && !p.Required && (p.Source.Expression != nil && defaultable(err) || p.Source.Kind == task.PathParam) {
			// hyperfleet-adapter's rule for an optional param that cannot be
			// evaluated (the data lacks what it reads): its default, or no
			// value. API failures stay errors (retried).
			r.log.Warn("optional param has no value, default used", "param", p.Name, "error", err.Error())
			v, err = convertParam(p, p.Default)
			defaulted = p.Default != nil
		}
		if err != nil && p.Source.APICall != nil && IsResourceNotFound(err) {
			r.resourceGone("params", p.Name, err)
			return false
		}
		if r.trace != nil {
			r.traceParam(i, v, defaulted, err == nil && (v != nil || !bound[p.Name]), err)
		}
		if err != nil {
			r.phaseError("params", p.Name, err)
			r.bindDefaults(r.p.task.Params[i:])
			return false
		}
		if v == nil && bound[p.Name] {
			continue // a redefinition without a value keeps the earlier one
		}
		bound[p.Name] = true
		r.bind(p.Name, v)
	}
	return true
}

// bindDefaults binds params that could not be resolved to their defaults
// (or null), so post-processing still reports with sensible values.
func (r *eventRun) bindDefaults(params []task.Param) {
	for i := range params {
		if r.vars[params[i].Name] != nil && params[i].Default == nil {
			continue
		}
		v, err := convertParam(&params[i], params[i].Default)
		if err != nil {
			v = nil
		}
		r.bind(params[i].Name, v)
	}
}

// missingEventField is a required param absent from the event.
type missingEventField struct{ param, path string }

func (e *missingEventField) Error() string {
	return fmt.Sprintf("required param %q: the event has no %s", e.param, e.path)
}

// paramValue is p's value before its type is applied, and whether it is
// p's default.
func (r *eventRun) paramValue(ctx context.Context, p *task.Param) (any, bool, error) {
	src := p.Source
	var v any
	switch {
	case src.APICall != nil:
		ctx, span := r.p.startSpan(ctx, SpanParam)
		body, err := r.callAPI(ctx, src.APICall)
		endParam(span, p.Name, err)
		if err != nil {
			return nil, false, err
		}
		v, err := decodeJSON(body)
		return v, false, err
	case src.Expression != nil:
		var err error
		if v, err = r.eval(ctx, src.Expression); err != nil {
			return nil, false, err
		}
	case src.File != nil:
		var err error
		if v, err = readFileSource(src.File); err != nil {
			return nil, false, fmt.Errorf("param %q: %w", p.Name, err)
		}
	case src.Kind == task.PathEnv:
		if s, ok := r.p.env(src.Root); ok {
			v = s
			r.env[src.Root] = s
		}
	case src.Kind == task.PathParam:
		base := r.vars[src.Root]
		if src.Field == "" {
			v = base
			break
		}
		if _, ok := base.(map[string]any); !ok && base != nil {
			return nil, false, fmt.Errorf("param %q: %s is not an object (%T), cannot read %s from it", p.Name, src.Root, base, src.Path)
		}
		v = lookupPath(base, src.Field)
	case src.Kind == task.PathConfig:
		v = lookupPath(r.p.config, src.Field)
	case src.Kind == task.PathAdapter:
		v = lookupPath(map[string]any{"name": r.p.info.Name, "version": r.p.info.Version}, src.Field)
	default:
		v = lookupPath(r.vars["event"], src.Field)
	}
	defaulted := false
	if s, ok := v.(string); ok && s == "" && p.Default != nil {
		v, defaulted = p.Default, true // an empty string takes the default too, as in hyperfleet-adapter
	}
	if v == nil && p.Default != nil {
		v, defaulted = p.Default, true
	}
	if v == nil && p.Required {
		if src.Kind == task.PathEvent {
			r.result.InvalidEvent = true
			return nil, false, &missingEventField{param: p.Name, path: src.Path}
		}
		return nil, false, fmt.Errorf("required param %q has no value (source %s)", p.Name, describeSource(src))
	}
	return v, defaulted, nil
}

func describeSource(s task.ParamSource) string {
	switch {
	case s.Path != "":
		return s.Path
	case s.File != nil:
		return "file " + s.File.Path
	case s.Expression != nil:
		return "expression " + s.Expression.Src
	default:
		return "api_call"
	}
}

// readFileSource reads a file param: a regular file of at most
// config.MaxFileBytes, trimmed unless trim is false.
func readFileSource(f *task.FileSource) (string, error) {
	data, err := boundedfile.Read(f.Path, configfile.MaxFileBytes)
	if err != nil {
		return "", fmt.Errorf("file %s: %w", f.Path, err)
	}
	s := string(data)
	if f.Trim == nil || *f.Trim {
		s = strings.TrimSpace(s)
	}
	return s, nil
}

// lookupPath follows a dotted path through maps; nil when any step is absent.
func lookupPath(v any, path string) any {
	for _, key := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		if v, ok = m[key]; !ok {
			return nil
		}
	}
	return v
}

// convertParam applies the declared type. Without a type the value keeps
// the type it has (a JSON object stays an object, a CEL bool a bool); nil
// stays nil. A value that is not of the type is an error, never a guess:
// int takes whole numbers within int64 (42, 1e3, "42"; not 1.9, 1e300 or
// "abc"), float finite numbers, bool true/false (yes/no, on/off, 1/0),
// string scalars without control characters other than tab, CR and LF (an
// object or list is not a string).
func convertParam(p *task.Param, v any) (any, error) {
	if v == nil || p.Type == "" {
		return v, nil
	}
	var out any
	var err error
	switch p.Type {
	case "string":
		out, err = toStrictString(v)
	case "int", "int64":
		out, err = toInt(v)
	case "float", "float64":
		out, err = toFloat(v)
	case "bool":
		out, err = toBool(v)
	default:
		return v, nil
	}
	if err != nil {
		return nil, fmt.Errorf("param %q: cannot use %.60s as %s: %v", p.Name, describeValue(v), p.Type, err)
	}
	return out, nil
}

// describeValue shows a value in an error, quoted when it is a string.
func describeValue(v any) string {
	if s, ok := v.(string); ok {
		return strconv.Quote(s)
	}
	return fmt.Sprintf("%v (%T)", v, v)
}

func toString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	default:
		return fmt.Sprint(v)
	}
}

func toStrictString(v any) (string, error) {
	switch v.(type) {
	case map[string]any, []any:
		return "", fmt.Errorf("an object or list is not a string")
	}
	s := toString(v)
	if i := strings.IndexFunc(s, func(r rune) bool { return r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r == 0x7f }); i >= 0 {
		return "", fmt.Errorf("control character %q at byte %d", s[i], i)
	}
	return s, nil
}

func toInt(v any) (int64, error) {
	switch x := v.(type) {
	case int64:
		return x, nil
	case int:
		return int64(x), nil
	case float64:
		return wholeInt(x)
	case map[string]any, []any, bool:
		return 0, fmt.Errorf("not a number")
	}
	s := toString(v)
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return i, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("not a number")
	}
	return wholeInt(f)
}

// wholeInt converts f when it is a whole number within int64.
func wholeInt(f float64) (int64, error) {
	if f != math.Trunc(f) || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, fmt.Errorf("not a whole number")
	}
	if f < -(1<<63) || f >= 1<<63 {
		return 0, fmt.Errorf("out of the int64 range")
	}
	return int64(f), nil
}

func toFloat(v any) (float64, error) {
	var f float64
	switch x := v.(type) {
	case float64:
		f = x
	case int64:
		f = float64(x)
	case int:
		f = float64(x)
	case map[string]any, []any, bool:
		return 0, fmt.Errorf("not a number")
	default:
		var err error
		if f, err = strconv.ParseFloat(toString(v), 64); err != nil {
			return 0, fmt.Errorf("not a number")
		}
	}
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, fmt.Errorf("not a finite number")
	}
	return f, nil
}

func toBool(v any) (bool, error) {
	if b, ok := v.(bool); ok {
		return b, nil
	}
	switch v.(type) {
	case map[string]any, []any:
		return false, fmt.Errorf("not a bool")
	}
	switch strings.ToLower(toString(v)) {
	case "true", "yes", "on", "1":
		return true, nil
	case "false", "no", "off", "0":
		return false, nil
	}
	return false, fmt.Errorf("not a bool")
}
