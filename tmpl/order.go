package tmpl

import (
	"fmt"
	"strings"
	"text/template"
	"text/template/parse"
)

// stringFirstFuncs are the template functions whose argument order is
// hyperfleet-adapter's (the string first, as Go's strings package) and was
// sprig's (the string last) before: the number of arguments each takes.
var stringFirstFuncs = map[string]int{
	"trimPrefix": 2, "trimSuffix": 2, "contains": 2, "hasPrefix": 2, "hasSuffix": 2, "replace": 3,
}

// checkArgOrder refuses the calls of stringFirstFuncs that read as the old,
// sprig order, so a template written for it fails at load instead of
// rendering another string: a piped call ({{ .s | trimPrefix "x" }}, the
// piped value lands last) and a call whose leading arguments are all
// string literals while its last is not ({{ contains "x" .s }}).
func checkArgOrder(t *template.Template) error {
	for _, tt := range t.Templates() {
		if tt.Tree == nil || tt.Tree.Root == nil {
			continue
		}
		var err error
		walkPipes(tt.Tree.Root, func(p *parse.PipeNode) {
			if err == nil {
				err = checkPipeOrder(p)
			}
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func checkPipeOrder(p *parse.PipeNode) error {
	for i, c := range p.Cmds {
		id, ok := c.Args[0].(*parse.IdentifierNode)
		if !ok {
			continue
		}
		n, ok := stringFirstFuncs[id.Ident]
		if !ok {
			continue
		}
		args := c.Args[1:]
		want := orderHint(id.Ident)
		if i > 0 {
			return fmt.Errorf("%s: a value piped into %s becomes its last argument, but %s takes the string first (%s, hyperfleet-adapter's order); call it with the string as first argument instead of piping",
				strings.TrimSpace(c.String()), id.Ident, id.Ident, want)
		}
		if len(args) != n {
			continue
		}
		leadingLiterals := true
		for _, a := range args[:n-1] {
			if _, lit := a.(*parse.StringNode); !lit {
				leadingLiterals = false
			}
		}
		if _, lastLit := args[n-1].(*parse.StringNode); leadingLiterals && !lastLit {
			return fmt.Errorf("%s: %s takes the string first (%s, hyperfleet-adapter's order); this call has it last, the sprig order: swap the arguments",
				strings.TrimSpace(c.String()), id.Ident, want)
		}
	}
	return nil
}

func orderHint(fn string) string {
	if fn == "replace" {
		return "replace s old new"
	}
	second := map[string]string{"trimPrefix": "prefix", "trimSuffix": "suffix", "contains": "substr", "hasPrefix": "prefix", "hasSuffix": "suffix"}[fn]
	return fn + " s " + second
}

// walkPipes calls f for every pipeline of the list, nested ones included.
func walkPipes(n parse.Node, f func(*parse.PipeNode)) {
	switch x := n.(type) {
	case *parse.ListNode:
		if x == nil {
			return
		}
		for _, c := range x.Nodes {
			walkPipes(c, f)
		}
	case *parse.ActionNode:
		walkPipes(x.Pipe, f)
	case *parse.IfNode:
		walkPipes(x.Pipe, f)
		walkPipes(x.List, f)
		walkPipes(x.ElseList, f)
	case *parse.RangeNode:
		walkPipes(x.Pipe, f)
		walkPipes(x.List, f)
		walkPipes(x.ElseList, f)
	case *parse.WithNode:
		walkPipes(x.Pipe, f)
		walkPipes(x.List, f)
		walkPipes(x.ElseList, f)
	case *parse.TemplateNode:
		walkPipes(x.Pipe, f)
	case *parse.PipeNode:
		if x == nil {
			return
		}
		f(x)
		for _, c := range x.Cmds {
			for _, a := range c.Args {
				walkPipes(a, f)
			}
		}
	case *parse.ChainNode:
		walkPipes(x.Node, f)
	}
}
