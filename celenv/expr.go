package celenv

import (
	"strings"

	"github.com/bundle-adapter/bundle-adapter/internal/configfile"
	"github.com/google/cel-go/cel"
	"gopkg.in/yaml.v3"
)

// Expr is a CEL expression from a config file, compiled at load.
type Expr struct {
	Src  string
	Path string
	Line int
	// Segments place Src in its file (configfile.ScalarSegments), so a
	// compile error names the file's line and column; nil when unknown.
	Segments []configfile.Segment

	// Program is ready to evaluate; safe for concurrent use.
	Program cel.Program
	// Uninterruptible reports that Program has no comprehension (all,
	// exists, map, filter, ...). A comprehension is the only place a CEL
	// evaluation checks its context (every celInterruptCheckInterval
	// iterations), so such a program evaluates the same with ContextEval
	// and with Eval, whatever the context. The zero value, false, claims
	// nothing: the program is evaluated under its context.
	Uninterruptible bool
	// Unguarded lists, sorted, the fields "x.f" of variables x the
	// expression reads without optional selection (x.f, x["f"]; "x.*" for
	// a computed key) and never tests (has(x.f), x.?f): such a read fails
	// while the field is absent.
	Unguarded []string
}

// UnguardedOf lists the unguarded reads (see Unguarded) of fields of the
// variable name, as "name.f".
func (e *Expr) UnguardedOf(name string) []string {
	if e == nil {
		return nil
	}
	var out []string
	for _, p := range e.Unguarded {
		if strings.HasPrefix(p, name+".") {
			out = append(out, p)
		}
	}
	return out
}

func (e *Expr) DecodeNode(d *configfile.Decoder, n *yaml.Node, path string) {
	if n.Kind != yaml.ScalarNode {
		d.Errs.AddAt(path, n.Line, "must be a CEL expression string, not %s", configfile.Describe(n))
		return
	}
	e.Src, e.Path, e.Line = n.Value, path, n.Line
	if d.Errs.Source != nil {
		e.Segments = configfile.ScalarSegments(n, d.Errs.Source)
	}
}

// MarshalYAML writes the expression as written.
func (e *Expr) MarshalYAML() (any, error) { return e.Src, nil }
