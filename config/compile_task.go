package config

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// DefaultDeletionDeadline is how long a deletion may stay pending before the
// bundle outcome says stalled, when a lifecycle rule does not set one.
const DefaultDeletionDeadline = 10 * time.Minute

// Kinds whose recreation deletes everything inside them.
var destructiveKinds = []string{"Namespace", "CustomResourceDefinition"}

var paramTypes = []string{"", "string", "int", "int64", "float", "float64", "bool"}

func compileTask(l *errorList, c *TaskConfig) {
	env, err := newCELEnv(c.variableNames(l))
	if err != nil {
		l.add("", "internal: CEL environment: %v", err)
		return
	}
	c.CEL = env
	later := c.laterNames()
	earlier := map[string]bool{}
	for i := range c.Params {
		compileParam(l, env, &c.Params[i], indexPath("params", i), earlier, later)
		earlier[c.Params[i].Name] = true
	}
	for i := range c.Preconditions {
		compilePrecondition(l, env, &c.Preconditions[i], indexPath("preconditions", i))
	}
	names := newUniqueNames(l, "resource")
	for i := range c.Resources {
		p := indexPath("resources", i)
		names.check(p, c.Resources[i].Name)
		compileResource(l, env, refs{dir: c.Dir(), roots: c.RefRoots}, &c.Resources[i], p)
	}
	if c.Post != nil {
		compilePost(l, env, c.Dir(), c.Post)
	}
	checkTemplates(l, c)
}

// variableNames lists every name CEL expressions may use, reporting names
// that are reused within params, preconditions or payloads, or that shadow a
// built-in. A capture may reuse a param's name: the captured value wins.
func (c *TaskConfig) variableNames(l *errorList) []string {
	set := map[string]bool{}
	add := func(path, name string) {
		if slices.Contains(builtinVars, name) {
			l.add(path+".name", "%q is a built-in name (%v) and cannot be redefined", name, builtinVars)
			return
		}
		set[name] = true
	}
	// A param may reuse an earlier param's name (hyperfleet-adapter's
	// configs define generation twice): see Param.
	for i, p := range c.Params {
		path := indexPath("params", i)
		if p.Name == "" {
			l.add(path+".name", "is required")
			continue
		}
		add(path, p.Name)
	}
	pre := newUniqueNames(l, "precondition")
	for i, p := range c.Preconditions {
		path := indexPath("preconditions", i)
		if pre.check(path, p.Name) {
			add(path, p.Name)
		}
		caps := newUniqueNames(l, "capture")
		for j, cp := range p.Capture {
			cpath := indexPath(path+".capture", j)
			if caps.check(cpath, cp.Name) {
				add(cpath, cp.Name)
			}
		}
	}
	if c.Post != nil {
		payloads := newUniqueNames(l, "payload")
		for i, p := range c.Post.Payloads {
			path := indexPath("post.payloads", i)
			if payloads.check(path, p.Name) {
				add(path, p.Name)
			}
		}
	}
	names := make([]string, 0, len(set)+len(builtinVars))
	for n := range set {
		names = append(names, n)
	}
	return append(names, builtinVars...)
}

// adapterConfigKeys are the top-level keys a config.<path> source may
// start with (AdapterConfig's YAML keys).
var adapterConfigKeys = []string{"adapter", "clients", "debug_config", "log"}

// laterNames lists the names a param source cannot read because they are
// bound after the params: preconditions and their captures, and payloads.
func (c *TaskConfig) laterNames() map[string]string {
	out := map[string]string{}
	for _, p := range c.Preconditions {
		out[p.Name] = "precondition"
		for _, cp := range p.Capture {
			out[cp.Name] = "capture of precondition " + p.Name
		}
	}
	if c.Post != nil {
		for _, p := range c.Post.Payloads {
			out[p.Name] = "payload"
		}
	}
	return out
}

func compileParam(l *errorList, env *CELEnv, p *Param, path string, earlier map[string]bool, later map[string]string) {
	if !slices.Contains(paramTypes, p.Type) {
		l.add(path+".type", "must be one of string, int, int64, float, float64, bool, not %q", p.Type)
	}
	s := &p.Source
	set := 0
	for _, b := range []bool{s.Path != "", s.APICall != nil, s.Expression != nil, s.File != nil} {
		if b {
			set++
		}
	}
	switch {
	case set == 0:
		l.add(path+".source", "is required: event.<field>, env.<NAME>, <param>.<field>, {api_call: ...}, {expression: ...} or {file: {path: ...}}")
	case set > 1:
		l.add(path+".source", "set only one of api_call, expression and file")
	case s.Path != "":
		if err := compileSourcePath(s, earlier, later); err != nil {
			l.add(path+".source", "%v", err)
		}
	case s.APICall != nil:
		compileAPICall(l, s.APICall, path+".source.api_call", "GET")
	case s.File != nil:
		if s.File.Path == "" {
			l.add(path+".source.file.path", "is required")
		} else if !filepath.IsAbs(s.File.Path) {
			l.add(path+".source.file.path", "must be an absolute path (the file is read on every event), not %q", s.File.Path)
		}
	default:
		env.compileOptionalParam(l, s.Expression, p.Required)
	}
}

// compileSourcePath resolves a string source the way hyperfleet-adapter
// does: the prefixes event., env. and config. first; then a path whose first
// segment is an earlier param (or adapter) reads that value; any other path
// is read from the event. A first segment that names a precondition, capture
// or payload is refused: params run before them, so hyperfleet-adapter would
// silently read the event there instead (the safer reading is an error).
func compileSourcePath(s *ParamSource, earlier map[string]bool, later map[string]string) error {
	p := s.Path
	for _, seg := range strings.Split(p, ".") {
		if seg == "" || strings.TrimSpace(seg) != seg {
			return fmt.Errorf("%q is not a dotted path (empty or padded segment)", p)
		}
	}
	root, field, _ := strings.Cut(p, ".")
	switch {
	case root == "event" && field != "":
		s.Kind, s.Field = PathEvent, field
	case root == "env" && field != "":
		s.Kind, s.Root = PathEnv, field
	case root == "config" && field != "":
		if r, _, _ := strings.Cut(field, "."); !slices.Contains(adapterConfigKeys, r) {
			return fmt.Errorf("config.%s: the adapter config has %s (params, preconditions, resources and post are not exposed)", field, strings.Join(adapterConfigKeys, ", "))
		}
		s.Kind, s.Field = PathConfig, field
	case earlier[root]:
		s.Kind, s.Root, s.Field = PathParam, root, field
	case root == "adapter" && (field == "name" || field == "version"):
		s.Kind, s.Root, s.Field = PathAdapter, root, field
	case later[root] != "":
		return fmt.Errorf("%q starts with %s %q, which is bound after the params (params run first): use it in a precondition, resource or post instead, or write event.%s for the event's field", p, later[root], root, p)
	default:
		s.Kind, s.Field = PathEvent, p
	}
	return nil
}

func compilePrecondition(l *errorList, env *CELEnv, p *Precondition, path string) {
	compileLog(l, p.Log, path+".log")
	if p.APICall != nil {
		compileAPICall(l, p.APICall, path+".api_call", "GET")
	}
	for i := range p.Capture {
		compileCapture(l, &p.Capture[i], indexPath(path+".capture", i))
	}
	if p.Expression != nil && len(p.Conditions) > 0 {
		l.add(path, "set expression or conditions, not both")
		return
	}
	if len(p.Conditions) > 0 {
		p.Expression = conditionsExpr(l, path+".conditions", p.Conditions)
	}
	env.compile(l, p.Expression)
}

func compileCapture(l *errorList, c *Capture, path string) {
	switch {
	case c.Field != "" && c.Expression != nil:
		l.add(path, "set field or expression, not both")
	case c.Field != "":
	case c.Expression != nil:
		compileResponseExpr(l, c.Expression)
		if c.Default != nil {
			l.warn(path+".default", "has no effect on an expression capture (as in hyperfleet-adapter): write the fallback in the expression, e.g. x.?y.orValue(d)")
		}
	default:
		l.add(path, "needs field or expression")
	}
}

func conditionsExpr(l *errorList, path string, conds []Condition) *Expr {
	src, ok := conditionsToCEL(l, path, conds)
	if !ok {
		return nil
	}
	return &Expr{Src: src, Path: path, Line: l.lineOf(path)}
}

// compileWhen compiles a rule; what names it in the error when it is missing.
func compileWhen(l *errorList, env *CELEnv, w *When, path string) {
	if w == nil || (w.Expression == nil && len(w.Conditions) == 0) {
		l.add(path, "needs expression or conditions")
		return
	}
	if w.Expression != nil && len(w.Conditions) > 0 {
		l.add(path, "set expression or conditions, not both")
		return
	}
	w.Compiled = w.Expression
	if w.Compiled == nil {
		w.Compiled = conditionsExpr(l, path+".conditions", w.Conditions)
	}
	env.compile(l, w.Compiled)
}

var httpMethods = []string{"GET", "POST", "PUT", "PATCH", "DELETE"}

func compileAPICall(l *errorList, a *APICall, path, defaultMethod string) {
	if a.Method == "" {
		a.Method = defaultMethod
	}
	oneOf(l, path+".method", a.Method, httpMethods...)
	if a.URL.Src == "" {
		l.add(path+".url", "is required")
	}
	compileTextWith(l, &a.URL, ParseURLTemplate)
	compileTextWith(l, &a.Body, ParseJSONTemplate)
	for i := range a.Headers {
		h := &a.Headers[i]
		if h.Name == "" {
			l.add(indexPath(path+".headers", i)+".name", "is required")
		}
		compileText(l, &h.Value)
	}
	if a.RetryBackoff != "" {
		oneOf(l, path+".retry_backoff", a.RetryBackoff, "exponential", "linear", "constant")
	}
	checkRetryAttempts(l, path+".retry_attempts", a.RetryAttempts)
}
