package adapter

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/bundle-adapter/bundle-adapter/config"
)

// resolveParams binds every param in config order. A required param that is
// missing from the event makes the event invalid (dead-lettered); other
// failures are reported and the event redelivered.
func (r *run) resolveParams(ctx context.Context) bool {
	for i := range r.p.task.Params {
		p := &r.p.task.Params[i]
		v, err := r.paramValue(ctx, p)
		if err == nil {
			v, err = convertParam(p, v)
		}
		if err != nil {
			r.phaseError("params", p.Name, err)
			r.bindDefaults(r.p.task.Params[i:])
			return false
		}
		r.bind(p.Name, v)
	}
	return true
}

// bindDefaults binds params that could not be resolved to their defaults
// (or null), so post-processing still reports with sensible values.
func (r *run) bindDefaults(params []config.Param) {
	for i := range params {
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

func (r *run) paramValue(ctx context.Context, p *config.Param) (any, error) {
	src := p.Source
	var v any
	switch {
	case src.APICall != nil:
		body, err := r.callAPI(ctx, src.APICall)
		if err != nil {
			return nil, err
		}
		return decodeJSON(body)
	case src.Expression != nil:
		var err error
		if v, err = r.eval(ctx, src.Expression); err != nil {
			return nil, err
		}
	case strings.HasPrefix(src.Path, "env."):
		name := strings.TrimPrefix(src.Path, "env.")
		if s, ok := r.p.env(name); ok {
			v = s
			r.env[name] = s
		}
	default:
		v = lookupPath(r.vars["event"], strings.TrimPrefix(src.Path, "event."))
	}
	if v == nil && p.Default != nil {
		v = p.Default
	}
	if v == nil && p.Required {
		if strings.HasPrefix(src.Path, "event.") {
			r.result.InvalidEvent = true
			return nil, &missingEventField{param: p.Name, path: src.Path}
		}
		return nil, fmt.Errorf("required param %q has no value (source %s)", p.Name, describeSource(src))
	}
	return v, nil
}

func describeSource(s config.ParamSource) string {
	switch {
	case s.Path != "":
		return s.Path
	case s.Expression != nil:
		return "expression " + s.Expression.Src
	default:
		return "api_call"
	}
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
// stays nil.
func convertParam(p *config.Param, v any) (any, error) {
	if v == nil || p.Type == "" {
		return v, nil
	}
	var out any
	var err error
	switch p.Type {
	case "string":
		return toString(v), nil
	case "int", "int64":
		out, err = toInt(v)
	case "float", "float64":
		out, err = strconv.ParseFloat(toString(v), 64)
	case "bool":
		out, err = toBool(v)
	default:
		return v, nil
	}
	if err != nil {
		return nil, fmt.Errorf("param %q: cannot convert %v to %s", p.Name, v, p.Type)
	}
	return out, nil
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

func toInt(v any) (int64, error) {
	switch x := v.(type) {
	case int64:
		return x, nil
	case int:
		return int64(x), nil
	case float64:
		return int64(x), nil
	}
	s := toString(v)
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return i, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	return int64(f), err
}

func toBool(v any) (bool, error) {
	if b, ok := v.(bool); ok {
		return b, nil
	}
	switch strings.ToLower(toString(v)) {
	case "true", "yes", "on", "1":
		return true, nil
	case "false", "no", "off", "0":
		return false, nil
	}
	return false, fmt.Errorf("not a bool")
}
