package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
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
// A Template is safe for concurrent use. Executing one costs no parsing; a
// string without "{{" is literal and costs nothing at all.
type Template struct {
	name    string
	src     string
	literal bool
	usesNow bool
	tmpl    *template.Template

	// clocks holds clones of tmpl whose "now" returns a per-clone time, so
	// templates that call now get the injected clock without a clone per
	// event and without sharing mutable state between goroutines.
	clocks sync.Pool // *tmplClock
}

type tmplClock struct {
	t   *template.Template
	now time.Time
}

// tmplBufPool recycles render buffers; buffers that grew past
// tmplMaxPooledBuf are dropped so one huge render does not pin memory.
var tmplBufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

const tmplMaxPooledBuf = 64 << 10

// ParseTemplate compiles src with the documented function set. name is used
// in errors (the YAML path, for example "resources[0].manifest.metadata.name");
// a call to a function outside the set is an error naming that function.
func ParseTemplate(name, src string) (*Template, error) {
	t := &Template{name: name, src: src}
	if !strings.Contains(src, "{{") {
		t.literal = true
		return t, nil
	}
	tt, err := template.New(name).Option("missingkey=error").Funcs(tmplFuncs).Parse(src)
	if err != nil {
		return nil, err
	}
	t.tmpl = tt
	t.usesNow = tmplUsesNow(tt)
	return t, nil
}

// Execute renders the template with data. A reference to a key missing from
// data is an error naming the key and the template's name. now is what the
// template function now returns; templates that do not call now ignore it.
// A literal template returns its source without running the engine.
func (t *Template) Execute(data map[string]any, now time.Time) (string, error) {
	if t.literal {
		return t.src, nil
	}
	buf := tmplBufPool.Get().(*bytes.Buffer)
	buf.Reset()
	defer func() {
		if buf.Cap() <= tmplMaxPooledBuf {
			tmplBufPool.Put(buf)
		}
	}()
	if err := t.execute(&tmplLimitWriter{buf: buf}, data, now); err != nil {
		if errors.Is(err, errTemplateTooLarge) {
			return "", fmt.Errorf("template: %s: %w", t.name, err)
		}
		return "", err
	}
	return buf.String(), nil
}

// MaxTemplateOutputBytes bounds what one template execution may write: a
// template that would write more ({{ range 100000000 }}...{{ end }}) fails
// with an error naming the limit instead of exhausting memory. Anything that
// large could never be sent anyway (bundles.MaxBundleBytes is 500 KiB).
const MaxTemplateOutputBytes = 4 << 20

// errTemplateTooLarge stops a template execution at MaxTemplateOutputBytes.
var errTemplateTooLarge = fmt.Errorf("output exceeds the template output limit of %d bytes", MaxTemplateOutputBytes)

// tmplLimitWriter writes to buf until MaxTemplateOutputBytes.
type tmplLimitWriter struct{ buf *bytes.Buffer }

func (w *tmplLimitWriter) Write(p []byte) (int, error) {
	if w.buf.Len()+len(p) > MaxTemplateOutputBytes {
		return 0, errTemplateTooLarge
	}
	return w.buf.Write(p)
}

func (t *Template) execute(buf io.Writer, data map[string]any, now time.Time) error {
	if !t.usesNow {
		return t.tmpl.Execute(buf, data)
	}
	c, err := t.clock()
	if err != nil {
		return err
	}
	c.now = now
	err = c.t.Execute(buf, data)
	c.now = time.Time{}
	t.clocks.Put(c)
	return err
}

// clock returns a clone of the template whose now function reads the
// clone's own now field.
func (t *Template) clock() (*tmplClock, error) {
	if c, ok := t.clocks.Get().(*tmplClock); ok {
		return c, nil
	}
	clone, err := t.tmpl.Clone()
	if err != nil {
		return nil, err
	}
	c := &tmplClock{t: clone}
	clone.Funcs(template.FuncMap{"now": func() time.Time { return c.now }})
	return c, nil
}

// Source returns the template text as written.
func (t *Template) Source() string { return t.src }

// IsLiteral reports whether the source has no template actions ("{{"); such
// a template renders to its source unchanged.
func (t *Template) IsLiteral() bool { return t.literal }

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
