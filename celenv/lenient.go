package celenv

import (
	"strings"

	"github.com/bundle-adapter/bundle-adapter/internal/configfile"
	"github.com/google/cel-go/cel"
)

// compileOptionalParam compiles the expression of a param that is not
// required. HyperFleet's adapter checks only the syntax of such an
// expression at load; one naming a variable that does not exist fails on
// every event and the param takes its default (its test configs carry
// one, dryrun-kubernetes' "non_existent"). Such an expression loads here
// with a warning, compiled unchecked so it fails the same way at run time
// (the pipeline then applies the default). Any other error, and every
// error of a required param, is a load error as always.
func (c *Env) CompileOptionalParam(l *configfile.ErrorList, e *Expr, required bool) {
	if e == nil || required || strings.TrimSpace(e.Src) == "" {
		c.Compile(l, e)
		return
	}
	_, iss := c.env.Compile(e.Src)
	if iss.Err() == nil || !onlyUndeclared(iss.Errors()) {
		c.Compile(l, e)
		return
	}
	parsed, piss := c.env.Parse(e.Src)
	if piss.Err() != nil {
		c.Compile(l, e)
		return
	}
	l.Warn(e.Path, "CEL: %s: the param can never be evaluated and takes its default on every event, as in HyperFleet's adapter (which checks only the syntax at load)", oneLine(iss.Err().Error()))
	c.program(l, e, parsed)
}

func onlyUndeclared(errs []*cel.Error) bool {
	for _, e := range errs {
		if !strings.Contains(e.Message, "undeclared reference") {
			return false
		}
	}
	return len(errs) > 0
}
