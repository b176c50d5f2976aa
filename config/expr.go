package config

import (
	"reflect"

	"github.com/google/cel-go/cel"
	"gopkg.in/yaml.v3"
)

// Expr is a CEL expression from a config file, compiled at load.
type Expr struct {
	Src  string
	Path string
	Line int

	// Program is ready to evaluate; safe for concurrent use.
	Program cel.Program
	// Uninterruptible reports that Program has no comprehension (all,
	// exists, map, filter, ...). A comprehension is the only place a CEL
	// evaluation checks its context (every celInterruptCheckInterval
	// iterations), so such a program evaluates the same with ContextEval
	// and with Eval, whatever the context. The zero value, false, claims
	// nothing: the program is evaluated under its context.
	Uninterruptible bool
}

func (e *Expr) decodeNode(d *decoder, n *yaml.Node, path string) {
	if n.Kind != yaml.ScalarNode {
		d.errs.addAt(path, n.Line, "must be a CEL expression string, not %s", describe(n))
		return
	}
	e.Src, e.Path, e.Line = n.Value, path, n.Line
}

// MarshalYAML writes the expression as written.
func (e *Expr) MarshalYAML() (any, error) { return e.Src, nil }

// Text is a string field that is a Go template (for example a URL with
// "{{ .clusterId }}"), compiled at load.
type Text struct {
	Src  string
	Path string

	// T is the compiled template.
	T *Template
}

func (t *Text) decodeNode(d *decoder, n *yaml.Node, path string) {
	if n.Kind != yaml.ScalarNode {
		d.errs.addAt(path, n.Line, "must be a string, not %s", describe(n))
		return
	}
	t.Src, t.Path = n.Value, path
}

// MarshalYAML writes the template as written.
func (t Text) MarshalYAML() (any, error) { return t.Src, nil }

// IsZero reports whether the field was left empty.
func (t Text) IsZero() bool { return t.Src == "" }

// compileText compiles t in place; an empty text stays nil.
func compileText(l *errorList, t *Text) {
	if t.Src == "" {
		return
	}
	tmpl, err := ParseTemplate(t.Path, t.Src)
	if err != nil {
		l.add(t.Path, "%v", err)
		return
	}
	t.T = tmpl
}

func reflectValue(p any) reflect.Value { return reflect.ValueOf(p).Elem() }
