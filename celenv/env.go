package celenv

import (
	"os"
	"slices"
	"strings"

	"github.com/bundle-adapter/bundle-adapter/internal/configfile"
	"github.com/bundle-adapter/bundle-adapter/tmpl"
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/operators"
	"github.com/google/cel-go/common/types"
)

// EnvVar is an environment variable the task config reads by name: env.NAME
// in CEL (env.?NAME and has(env.NAME) are optional reads) or {{ .env.NAME }}
// in a template. Params with source env.NAME are not listed: a param's
// value may be absent (default, required).
type EnvVar struct {
	Name string
	// Required is false when every read is optional.
	Required bool
	// Path and Line locate the first required read, or the first read.
	Path string
	Line int
}

// EnvVars lists the environment variables the config's CEL and templates
// read, by name. hyperfleet-adapter exposes the whole process environment as
// env; here only the variables named in the config are read (the pipeline
// looks them up once per event), so the config cannot dump the environment
// (toJson(env)) and a variable it needs is known at load: an unset required
// one is a load error rather than a failure of every event.
func (c *Env) EnvVars() []EnvVar {
	out := make([]EnvVar, 0, len(c.envVars))
	for _, v := range c.envVars {
		out = append(out, *v)
	}
	slices.SortFunc(out, func(a, b EnvVar) int { return strings.Compare(a.Name, b.Name) })
	return out
}

func (c *Env) addEnvVar(name string, required bool, path string, line int) {
	if c.envVars == nil {
		c.envVars = map[string]*EnvVar{}
	}
	v, ok := c.envVars[name]
	if !ok {
		c.envVars[name] = &EnvVar{Name: name, Required: required, Path: path, Line: line}
		return
	}
	if required && !v.Required {
		v.Required, v.Path, v.Line = true, path, line
	}
}

// checkCELEnvReads records the env.NAME reads of a checked expression and
// reports any other use of env (env["X"], toJson(env), env alone): it would
// need the whole environment, which is not exposed.
func (c *Env) checkCELEnvReads(l *configfile.ErrorList, e *Expr, root ast.Expr) {
	allowed := map[int64]bool{}
	type read struct {
		name     string
		required bool
	}
	var reads []read
	isEnv := func(x ast.Expr) bool { return x.Kind() == ast.IdentKind && x.AsIdent() == "env" }
	ast.PreOrderVisit(root, ast.NewExprVisitor(func(x ast.Expr) {
		switch x.Kind() {
		case ast.SelectKind:
			s := x.AsSelect()
			if isEnv(s.Operand()) {
				allowed[s.Operand().ID()] = true
				reads = append(reads, read{s.FieldName(), !s.IsTestOnly()})
			}
		case ast.CallKind:
			call := x.AsCall()
			args := call.Args()
			if call.FunctionName() != operators.OptSelect || len(args) != 2 || !isEnv(args[0]) {
				return
			}
			if args[1].Kind() == ast.LiteralKind {
				if s, ok := args[1].AsLiteral().(types.String); ok {
					allowed[args[0].ID()] = true
					reads = append(reads, read{string(s), false})
				}
			}
		}
	}))
	bad := false
	ast.PreOrderVisit(root, ast.NewExprVisitor(func(x ast.Expr) {
		if isEnv(x) && !allowed[x.ID()] {
			bad = true
		}
	}))
	if bad {
		l.AddAt(e.Path, e.Line, "CEL: env can only be read as env.NAME or env.?NAME: only the environment variables a config names are exposed, not the whole environment")
		return
	}
	for _, r := range reads {
		c.addEnvVar(r.name, r.required, e.Path, e.Line)
	}
}

// checkTemplateEnvReads does the same for a template's .env.NAME reads.
func (c *Env) CheckTemplateEnvReads(l *configfile.ErrorList, t *tmpl.Template) {
	for _, ref := range t.RootFields() {
		if ref[0] != "env" {
			continue
		}
		if len(ref) < 3 { // the name and its prefix: .env or $.env alone
			l.Add(t.Name, "template reads .env as a whole: only {{ .env.NAME }} is allowed (only the environment variables a config names are exposed)")
			continue
		}
		c.addEnvVar(ref[1], true, t.Name, 0)
	}
}

// checkEnvSet reports every required environment variable that is not set
// in the environment of the load: every event would fail on it.
func (c *Env) CheckEnvSet(l *configfile.ErrorList) {
	for _, v := range c.EnvVars() {
		if _, ok := os.LookupEnv(v.Name); !ok && v.Required {
			l.AddAt(v.Path, v.Line, "env.%s: the environment variable %s is not set, so every event would fail to read it; set it, or read it as env.?%s.orValue(\"\") in CEL",
				v.Name, v.Name, v.Name)
		}
	}
}
