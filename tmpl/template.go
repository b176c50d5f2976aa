package tmpl

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"text/template"
	"text/template/parse"
	"time"
)

// Template is a Go text/template compiled once at config load. It runs with
// the function set documented in funcs.go and with missingkey=error, so a
// reference to a param that is not in the data fails naming the param.
//
// Every execution is bounded (see MaxSteps): a template that cannot
// finish within its budget fails with an error naming the template and the
// limit, and a cancelled context stops it at its next step.
//
// A Template is safe for concurrent use. Executing one costs no parsing; a
// string without "{{" is literal and costs nothing at all.
type Template struct {
	Name    string
	src     string
	Literal bool
	usesNow bool
	tmpl    *template.Template
	// where is the file:line the template was written at, when known.
	where string
	// origin maps the text onto its file, when known (SetOrigin).
	origin *Origin

	// clones holds copies of tmpl whose functions are bound to a
	// per-clone tmplState (the injected clock and the budget), so
	// executions need no clone per event and share no mutable state.
	clones sync.Pool // *tmplClone
}

type tmplClone struct {
	t     *template.Template
	state tmplState
}

// tmplBufPool recycles render buffers; buffers that grew past
// tmplMaxPooledBuf are dropped so one huge render does not pin memory.
var tmplBufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

const tmplMaxPooledBuf = 64 << 10

// Parse compiles src with the documented function set. name is used
// in errors (the YAML path, for example "resources[0].manifest.metadata.name");
// a call to a function outside the set is an error naming that function. A
// template whose defined templates call each other in a cycle, or whose
// template calls expand past MaxSteps, is refused.
func Parse(name, src string) (*Template, error) {
	t := &Template{Name: name, src: src}
	if !strings.Contains(src, "{{") {
		t.Literal = true
		return t, nil
	}
	tt, err := template.New(name).Option("missingkey=error").Funcs(tmplFuncs).Parse(src)
	if err != nil {
		return nil, err
	}
	if err := checkTemplateCalls(tt); err != nil {
		return nil, err
	}
	if err := checkArgOrder(tt); err != nil {
		return nil, err
	}
	t.usesNow = tmplUsesNow(tt)
	requireValues(tt)
	instrumentTemplate(tt)
	t.tmpl = tt
	return t, nil
}

// Execute renders the template with data. A reference to a key missing from
// data is an error naming the key and the template's name. now is what the
// template function now returns; templates that do not call now ignore it.
// A literal template returns its source without running the engine. The
// execution is bounded by the template budget and MaxDuration.
func (t *Template) Execute(data map[string]any, now time.Time) (string, error) {
	return t.ExecuteContext(context.Background(), data, now)
}

// ExecuteContext is Execute stopped when ctx is done: the execution checks
// ctx at every step, function call and write, and then fails with
// context.Cause(ctx), so the caller's goroutine is back within a few steps.
func (t *Template) ExecuteContext(ctx context.Context, data map[string]any, now time.Time) (string, error) {
	if t.Literal {
		return t.src, nil
	}
	buf := tmplBufPool.Get().(*bytes.Buffer)
	buf.Reset()
	defer func() {
		if buf.Cap() <= tmplMaxPooledBuf {
			tmplBufPool.Put(buf)
		}
	}()
	if err := t.execute(ctx, buf, data, now); err != nil {
		return "", err
	}
	return buf.String(), nil
}

// MaxOutputBytes bounds what one template execution may write: a
// template that would write more ({{ range 100000000 }}...{{ end }}) fails
// with an error naming the limit instead of exhausting memory. Anything that
// large could never be sent anyway (bundles.MaxBundleBytes is 500 KiB).
const MaxOutputBytes = 4 << 20

// errTemplateTooLarge stops a template execution at MaxOutputBytes.
var ErrTooLarge = fmt.Errorf("output exceeds the template output limit of %d bytes", MaxOutputBytes)

// tmplLimitWriter writes to buf until MaxOutputBytes, and stops
// when the execution's context is done or its deadline passed (checked
// every tmplLiveEvery writes).
type tmplLimitWriter struct {
	buf    *bytes.Buffer
	state  *tmplState
	writes int
}

func (w *tmplLimitWriter) Write(p []byte) (int, error) {
	if w.buf.Len()+len(p) > MaxOutputBytes {
		return 0, ErrTooLarge
	}
	w.writes++
	if w.writes%tmplLiveEvery == 0 {
		if err := w.state.live(); err != nil {
			return 0, err
		}
	}
	return w.buf.Write(p)
}

// execute runs one execution on a pooled clone and names the template in
// a budget error.
func (t *Template) execute(ctx context.Context, buf *bytes.Buffer, data map[string]any, now time.Time) error {
	c, err := t.clone()
	if err != nil {
		return err
	}
	c.state.start(ctx, now)
	err = c.t.Execute(&tmplLimitWriter{buf: buf, state: &c.state}, data)
	stopped := c.state.stopped(err)
	c.state.reset()
	t.clones.Put(c)
	switch {
	case errors.Is(err, ErrTooLarge):
		return t.spotError(fmt.Errorf("template: %s: %w", t.Name, err))
	case stopped != nil:
		return t.spotError(fmt.Errorf("template: %s: %w", t.Name, stopped))
	}
	return t.spotError(t.missingValueError(err))
}

// clone returns a pooled copy of the template whose functions are bound to
// the copy's own state.
func (t *Template) clone() (*tmplClone, error) {
	if c, ok := t.clones.Get().(*tmplClone); ok {
		return c, nil
	}
	cl, err := t.tmpl.Clone()
	if err != nil {
		return nil, err
	}
	c := &tmplClone{t: cl}
	cl.Funcs(tmplExecFuncs(&c.state))
	return c, nil
}

// SetWhere records the file:line the template was written at, named by
// run-time errors such as a missing value. Call it at load, before the
// template is shared.
func (t *Template) SetWhere(where string) { t.where = where }

// Source returns the template text as written.
func (t *Template) Source() string { return t.src }

// IsLiteral reports whether the source has no template actions ("{{"); such
// a template renders to its source unchanged.
func (t *Template) IsLiteral() bool { return t.Literal }

// tmplNodeUsesNow reports whether the parse tree under n calls now.
func tmplNodeUsesNow(n parse.Node) bool {
	switch x := n.(type) {
	case *parse.ListNode:
		if x == nil {
			return false
		}
		for _, c := range x.Nodes {
			if tmplNodeUsesNow(c) {
				return true
			}
		}
	case *parse.ActionNode:
		return tmplNodeUsesNow(x.Pipe)
	case *parse.PipeNode:
		if x == nil {
			return false
		}
		for _, c := range x.Cmds {
			if tmplNodeUsesNow(c) {
				return true
			}
		}
	case *parse.CommandNode:
		for _, a := range x.Args {
			if tmplNodeUsesNow(a) {
				return true
			}
		}
	case *parse.IdentifierNode:
		return x.Ident == "now"
	case *parse.ChainNode:
		return tmplNodeUsesNow(x.Node)
	case *parse.IfNode:
		return tmplBranchUsesNow(&x.BranchNode)
	case *parse.RangeNode:
		return tmplBranchUsesNow(&x.BranchNode)
	case *parse.WithNode:
		return tmplBranchUsesNow(&x.BranchNode)
	case *parse.TemplateNode:
		return tmplNodeUsesNow(x.Pipe)
	}
	return false
}

func tmplBranchUsesNow(b *parse.BranchNode) bool {
	return tmplNodeUsesNow(b.Pipe) || tmplNodeUsesNow(b.List) || tmplNodeUsesNow(b.ElseList)
}
