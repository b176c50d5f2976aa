package tmpl

import (
	"slices"
	"text/template/parse"
)

// Reads returns every path of its data that the template can read, each a
// chain of map keys from the data's top level (.cluster.spec.region reads
// {"cluster", "spec", "region"}; {{ with .cluster }} reads {"cluster"}
// whole, since its body reads from it), in the order they appear, and ok
// true when those paths are all it reads: executing the template on two
// data maps that hold the same values along every path (and the same kind
// of value where a path stops early) gives the same output or the same
// error.
//
// ok is false when the template's output depends on more than its paths:
// it uses now, reads its data whole ({{ . }}, {{ toJson $ }}, {{ index .
// "x" }} where dot is the data), or calls or defines named templates. A
// literal template reads nothing and is ok. (Every other function is pure;
// printf's %p, which prints an address, is the one output that is not a
// function of the values read.)
func (t *Template) Reads() (paths [][]string, ok bool) {
	if t.Literal {
		return nil, true
	}
	if t.tmpl == nil || t.tmpl.Tree == nil || t.usesNow || len(t.tmpl.Templates()) > 1 {
		return nil, false
	}
	r := readsWalker{ok: true}
	r.list(t.tmpl.Tree.Root, true)
	if !r.ok {
		return nil, false
	}
	return r.paths, true
}

// walkTemplates calls f with every *Template of a compiled tree, in a
// stable order (map keys sorted).
func Walk(v any, f func(*Template)) {
	switch x := v.(type) {
	case *Template:
		f(x)
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			Walk(x[k], f)
		}
	case []any:
		for _, e := range x {
			Walk(e, f)
		}
	}
}

// readsWalker collects the data paths of a parse tree; ok turns false at
// the first node that reads the data in a way paths cannot describe.
type readsWalker struct {
	paths [][]string
	ok    bool
}

func (r *readsWalker) add(p []string) {
	if !slices.ContainsFunc(r.paths, func(q []string) bool { return slices.Equal(p, q) }) {
		r.paths = append(r.paths, slices.Clone(p))
	}
}

// list walks the nodes of l; dotIsRoot says whether dot is the data there
// (outside range and with bodies).
func (r *readsWalker) list(l *parse.ListNode, dotIsRoot bool) {
	if l == nil {
		return
	}
	for _, n := range l.Nodes {
		switch x := n.(type) {
		case *parse.ActionNode:
			r.pipe(x.Pipe, dotIsRoot)
		case *parse.IfNode:
			r.pipe(x.Pipe, dotIsRoot)
			r.list(x.List, dotIsRoot)
			r.list(x.ElseList, dotIsRoot)
		case *parse.RangeNode:
			r.pipe(x.Pipe, dotIsRoot)
			r.list(x.List, false)
			r.list(x.ElseList, dotIsRoot)
		case *parse.WithNode:
			r.pipe(x.Pipe, dotIsRoot)
			r.list(x.List, false)
			r.list(x.ElseList, dotIsRoot)
		case *parse.TextNode, *parse.CommentNode, *parse.BreakNode, *parse.ContinueNode:
		default: // a template call, or a node this walker does not know
			r.ok = false
		}
	}
}

func (r *readsWalker) pipe(p *parse.PipeNode, dotIsRoot bool) {
	if p == nil {
		return
	}
	for _, c := range p.Cmds {
		for _, a := range c.Args {
			r.arg(a, dotIsRoot)
		}
	}
}

func (r *readsWalker) arg(n parse.Node, dotIsRoot bool) {
	switch x := n.(type) {
	case *parse.FieldNode:
		if dotIsRoot {
			r.add(x.Ident)
		}
	case *parse.VariableNode:
		if x.Ident[0] == "$" {
			if len(x.Ident) == 1 {
				r.ok = false // $ alone: the data whole
				return
			}
			r.add(x.Ident[1:])
		}
	case *parse.DotNode:
		if dotIsRoot {
			r.ok = false
		}
	case *parse.ChainNode:
		// (pipeline).field: the pipeline's reads cover what the fields
		// select from its value.
		r.arg(x.Node, dotIsRoot)
	case *parse.PipeNode:
		r.pipe(x, dotIsRoot)
	case *parse.IdentifierNode, *parse.StringNode, *parse.NumberNode, *parse.BoolNode, *parse.NilNode:
	default:
		r.ok = false
	}
}
