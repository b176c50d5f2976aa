package celenv

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/bundle-adapter/bundle-adapter/internal/configfile"
	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/checker"
	celast "github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/ext"
	"github.com/google/cel-go/interpreter"
)

// CEL limits. An expression whose evaluation exceeds CostLimit fails with
// a clear error instead of burning CPU; evaluation also stops when the
// context given to ContextEval is done (the pipeline bounds every
// evaluation with adapter.DefaultCELTimeout, or Options.CELTimeout). Every
// function has a cost: cel-go's own and the ext libraries' grow with the
// sizes they handle, and toJson costs one per byte it writes and refuses a
// result past tmpl.MaxFuncBytes before encoding, so string bombs stop at
// the cost limit after a few MiB.
const (
	CostLimit                 = 1_000_000
	celInterruptCheckInterval = 100
)

// Names every task-config expression can use besides the config's own params,
// preconditions and captures.
var BuiltinVars = []string{"event", "env", "resources", "adapter", "bundles", "metadata"}

// Env is the one CEL environment of a task config: every param,
// precondition, capture and payload name plus the built-in names above, all
// typed dyn. Expressions are type-checked against it at load, so a misspelled
// name is a load error, not a runtime surprise.
type Env struct {
	env   *cel.Env
	Names []string

	// envVars are the env.NAME reads of the compiled expressions and
	// templates (see EnvVars).
	envVars map[string]*EnvVar
}

func celOptions() []cel.EnvOption {
	return append([]cel.EnvOption{
		cel.OptionalTypes(),
		cel.CrossTypeNumericComparisons(true),
		ext.Strings(),
		ext.Lists(),
		ext.Encoders(),
		cel.Function("toJson",
			cel.Overload(celToJSONOverload, []*cel.Type{cel.DynType}, cel.StringType,
				cel.UnaryBinding(celToJSON))),
		cel.CostEstimatorOptions(checker.OverloadCostEstimate(celToJSONOverload, estimateCELToJSON)),
		cel.Variable(ClockVar, cel.TimestampType),
	}, hyperfleetCELFunctions()...)
}

func NewEnv(names []string) (*Env, error) {
	opts := celOptions()
	sorted := append([]string(nil), names...)
	sort.Strings(sorted)
	for _, n := range sorted {
		if n == ClockVar {
			return nil, fmt.Errorf("the name %q is reserved for the event's clock", n)
		}
		opts = append(opts, cel.Variable(n, cel.DynType))
	}
	env, err := cel.NewEnv(opts...)
	if err != nil {
		return nil, err
	}
	return &Env{env: env, Names: sorted}, nil
}

// compile type-checks e and attaches its program. Errors are recorded in l.
func (c *Env) Compile(l *configfile.ErrorList, e *Expr) {
	if e == nil {
		return
	}
	if strings.TrimSpace(e.Src) == "" {
		l.AddAt(e.Path, e.Line, "CEL expression is empty")
		return
	}
	ast, iss := c.env.Compile(e.Src)
	if iss.Err() != nil {
		compileError(l, e, iss, c.Names)
		return
	}
	c.checkCELEnvReads(l, e, ast.NativeRep().Expr())
	e.Unguarded = unguardedReads(ast.NativeRep().Expr())
	c.program(l, e, ast)
}

func (c *Env) program(l *configfile.ErrorList, e *Expr, ast *cel.Ast) {
	prg, err := c.env.Program(ast,
		cel.CostLimit(CostLimit),
		cel.CostTrackerOptions(append(hyperfleetCELCostTrackers(),
			interpreter.OverloadCostTracker(celToJSONOverload, trackCELToJSON))...),
		cel.InterruptCheckFrequency(celInterruptCheckInterval),
		cel.EvalOptions(cel.OptOptimize))
	if err != nil {
		l.AddAt(e.Path, e.Line, "CEL: %s", oneLine(err.Error()))
		return
	}
	e.Program = prg
	e.Uninterruptible = !hasComprehension(ast.NativeRep().Expr())
}

// hasComprehension reports whether the expression tree (macros expanded)
// holds a comprehension.
func hasComprehension(root celast.Expr) bool {
	found := false
	celast.PreOrderVisit(root, celast.NewExprVisitor(func(x celast.Expr) {
		found = found || x.Kind() == celast.ComprehensionKind
	}))
	return found
}

var responseEnv = mustEnv(cel.NewEnv(celOptions()...))

// compileResponseExpr compiles a capture expression. Its variables are the
// top-level fields of an API response, unknown until run time, so it is
// parsed (syntax-checked) at load and not type-checked; a missing field is a
// run-time error naming it.
func CompileResponseExpr(l *configfile.ErrorList, e *Expr) {
	if e == nil {
		return
	}
	ast, iss := responseEnv.Parse(e.Src)
	if iss.Err() != nil {
		compileError(l, e, iss, nil)
		return
	}
	(&Env{env: responseEnv}).program(l, e, ast)
}

func mustEnv(env *cel.Env, err error) *cel.Env {
	if err != nil {
		panic(err)
	}
	return env
}

// oneLine keeps the message lines of a CEL error and drops its caret
// pictures: "ERROR: <input>:1:5: undeclared reference to 'x'\n | x\n | ^"
// becomes "1:5: undeclared reference to 'x'".
func oneLine(s string) string {
	var msgs []string
	for _, line := range strings.Split(s, "\n") {
		if rest, ok := strings.CutPrefix(line, "ERROR: <input>:"); ok {
			msgs = append(msgs, strings.TrimSpace(rest))
		}
	}
	if len(msgs) == 0 {
		return strings.Join(strings.Fields(s), " ")
	}
	msg := strings.ReplaceAll(strings.Join(msgs, "; "), " (in container '')", "")
	return strings.ReplaceAll(msg, "'_ba_", "'")
}

// celLiteral renders a Go value decoded from YAML as a CEL literal.
func Literal(v any) (string, error) {
	switch x := v.(type) {
	case nil:
		return "null", nil
	case string:
		return fmt.Sprintf("%q", x), nil
	case bool:
		return fmt.Sprint(x), nil
	case int:
		return fmt.Sprint(x), nil
	case float64:
		s := strconv.FormatFloat(x, 'g', -1, 64)
		if !strings.ContainsAny(s, ".eEn") {
			s += ".0"
		}
		return s, nil
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			s, err := Literal(e)
			if err != nil {
				return "", err
			}
			parts[i] = s
		}
		return "[" + strings.Join(parts, ", ") + "]", nil
	default:
		return "", fmt.Errorf("value %v (%T) cannot be compared", v, v)
	}
}
