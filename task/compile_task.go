package task

import (
	"fmt"
	"github.com/bundle-adapter/bundle-adapter/celenv"
	"github.com/bundle-adapter/bundle-adapter/internal/configfile"
	"github.com/bundle-adapter/bundle-adapter/tmpl"
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

func CompileTask(l *configfile.ErrorList, c *TaskConfig) {
	env, err := celenv.NewEnv(c.variableNames(l))
	if err != nil {
		l.Add("", "internal: CEL environment: %v", err)
		return
	}
	c.CEL = env
	later := c.laterNames()
	earlier := map[string]bool{}
	for i := range c.Params {
		compileParam(l, env, &c.Params[i], configfile.IndexPath("params", i), earlier, later)
		earlier[c.Params[i].Name] = true
	}
	for i := range c.Preconditions {
		compilePrecondition(l, env, &c.Preconditions[i], configfile.IndexPath("preconditions", i))
	}
	names := configfile.NewUniqueNames(l, "resource")
	for i := range c.Resources {
		p := configfile.IndexPath("resources", i)
		names.Check(p, c.Resources[i].Name)
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
func (c *TaskConfig) variableNames(l *configfile.ErrorList) []string {
	set := map[string]bool{}
	add := func(path, name string) {
		if slices.Contains(celenv.BuiltinVars, name) {
			l.Add(path+".name", "%q is a built-in name (%v) and cannot be redefined", name, celenv.BuiltinVars)
			return
		}
		set[name] = true
	}
	// A param may reuse an earlier param's name (hyperfleet-adapter's
	// configs define generation twice): see Param.
	for i, p := range c.Params {
		path := configfile.IndexPath("params", i)
		if p.Name == "" {
			l.Add(path+".name", "is required")
			continue
		}
		add(path, p.Name)
	}
	pre := configfile.NewUniqueNames(l, "precondition")
	for i, p := range c.Preconditions {
		path := configfile.IndexPath("preconditions", i)
		if pre.Check(path, p.Name) {
			add(path, p.Name)
		}
		caps := configfile.NewUniqueNames(l, "capture")
		for j, cp := range p.Capture {
			cpath := configfile.IndexPath(path+".capture", j)
			if caps.Check(cpath, cp.Name) {
				add(cpath, cp.Name)
			}
		}
	}
	if c.Post != nil {
		payloads := configfile.NewUniqueNames(l, "payload")
		for i, p := range c.Post.Payloads {
			path := configfile.IndexPath("post.payloads", i)
			if payloads.Check(path, p.Name) {
				add(path, p.Name)
			}
		}
	}
	names := make([]string, 0, len(set)+len(celenv.BuiltinVars))
	for n := range set {
		names = append(names, n)
	}
	return append(names, celenv.BuiltinVars...)
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

func compileParam(l *configfile.ErrorList, env *celenv.Env, p *Param, path string, earlier map[string]bool, later map[string]string) {
	if !slices.Contains(paramTypes, p.Type) {
		l.Add(path+".type", "must be one of string, int, int64, float, float64, bool, not %q", p.Type)
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
		l.Add(path+".source", "is required: event.<field>, env.<NAME>, <param>.<field>, {api_call: ...}, {expression: ...} or {file: {path: ...}}")
	case set > 1:
		l.Add(path+".source", "set only one of api_call, expression and file")
	case s.Path != "":
		if err := compileSourcePath(s, earlier, later); err != nil {
			l.Add(path+".source", "%v", err)
		}
	case s.APICall != nil:
		compileAPICall(l, s.APICall, path+".source.api_call", "GET")
	case s.File != nil:
		if s.File.Path == "" {
			l.Add(path+".source.file.path", "is required")
		} else if !filepath.IsAbs(s.File.Path) {
			l.Add(path+".source.file.path", "must be an absolute path (the file is read on every event), not %q", s.File.Path)
		}
	default:
		env.CompileOptionalParam(l, s.Expression, p.Required)
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

func compilePrecondition(l *configfile.ErrorList, env *celenv.Env, p *Precondition, path string) {
	compileLog(l, p.Log, path+".log")
	if p.APICall != nil {
		compileAPICall(l, p.APICall, path+".api_call", "GET")
	}
	for i := range p.Capture {
		compileCapture(l, &p.Capture[i], configfile.IndexPath(path+".capture", i))
	}
	if p.Expression != nil && len(p.Conditions) > 0 {
		l.Add(path, "set expression or conditions, not both")
		return
	}
	if len(p.Conditions) > 0 {
		p.Expression = conditionsExpr(l, path+".conditions", p.Conditions)
	}
	env.Compile(l, p.Expression)
	if len(p.Conditions) > 0 && p.Expression != nil && p.Expression.Program != nil {
		p.Checks = conditionChecks(env, path+".conditions", p.Conditions)
	}
}

// conditionChecks compiles each condition alone, once their conjunction
// compiled (so each does, and its errors are already reported).
func conditionChecks(env *celenv.Env, path string, conds []Condition) []*celenv.Expr {
	out := make([]*celenv.Expr, len(conds))
	for i, c := range conds {
		src, err := conditionToCEL(c)
		if err != nil {
			return nil
		}
		var scratch configfile.ErrorList
		out[i] = &celenv.Expr{Src: src, Path: configfile.IndexPath(path, i)}
		env.Compile(&scratch, out[i])
		if out[i].Program == nil {
			return nil
		}
	}
	return out
}

func compileCapture(l *configfile.ErrorList, c *Capture, path string) {
	switch {
	case c.Field != "" && c.Expression != nil:
		l.Add(path, "set field or expression, not both")
	case c.Field != "":
	case c.Expression != nil:
		celenv.CompileResponseExpr(l, c.Expression)
		if c.Default != nil {
			l.Warn(path+".default", "has no effect on an expression capture (as in hyperfleet-adapter): write the fallback in the expression, e.g. x.?y.orValue(d)")
		}
	default:
		l.Add(path, "needs field or expression")
	}
}

func conditionsExpr(l *configfile.ErrorList, path string, conds []Condition) *celenv.Expr {
	src, ok := conditionsToCEL(l, path, conds)
	if !ok {
		return nil
	}
	return &celenv.Expr{Src: src, Path: path, Line: l.LineOf(path)}
}

// compileWhen compiles a rule; what names it in the error when it is missing.
func compileWhen(l *configfile.ErrorList, env *celenv.Env, w *When, path string) {
	if w == nil || (w.Expression == nil && len(w.Conditions) == 0) {
		l.Add(path, "needs expression or conditions")
		return
	}
	if w.Expression != nil && len(w.Conditions) > 0 {
		l.Add(path, "set expression or conditions, not both")
		return
	}
	w.Compiled = w.Expression
	if w.Compiled == nil {
		w.Compiled = conditionsExpr(l, path+".conditions", w.Conditions)
	}
	env.Compile(l, w.Compiled)
}

var httpMethods = []string{"GET", "POST", "PUT", "PATCH", "DELETE"}

func compileAPICall(l *configfile.ErrorList, a *APICall, path, defaultMethod string) {
	if a.Method == "" {
		a.Method = defaultMethod
	}
	configfile.OneOf(l, path+".method", a.Method, httpMethods...)
	if a.URL.Src == "" {
		l.Add(path+".url", "is required")
	}
	tmpl.CompileTextWith(l, &a.URL, tmpl.ParseURL)
	tmpl.CompileTextWith(l, &a.Body, tmpl.ParseJSON)
	for i := range a.Headers {
		h := &a.Headers[i]
		if h.Name == "" {
			l.Add(configfile.IndexPath(path+".headers", i)+".name", "is required")
		}
		tmpl.CompileText(l, &h.Value)
	}
	if a.RetryBackoff != "" {
		configfile.OneOf(l, path+".retry_backoff", a.RetryBackoff, "exponential", "linear", "constant")
	}
	checkBound(l, path+".timeout", "APICall.Timeout", int64(a.Timeout))
	if a.RetryAttempts < 0 {
		checkBound(l, path+".retry_attempts", "APICall.RetryAttempts", int64(a.RetryAttempts))
	}
	configfile.CheckRetryAttempts(l, path+".retry_attempts", a.RetryAttempts)
}
