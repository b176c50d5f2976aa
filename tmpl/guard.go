package tmpl

import (
	"fmt"
	"text/template"
	"text/template/parse"
)

// tmplStepFunc is the hidden function that spends one step of the budget.
// Its name cannot be called from a config file: the parse-time function
// map does not hold it, only the execution clones do.
const tmplStepFunc = "_bundleAdapterStep"

// tmplStepVar receives the step function's empty result; a config file
// cannot name it (a variable name is an identifier after "$").
const tmplStepVar = "$·step"

// tmplRangeFunc is the hidden function every range pipeline ends with: it
// spends one step per iteration (see tmplState.rangeOver).
const tmplRangeFunc = "_bundleAdapterRange"

// instrumentTemplate ends every range pipeline with the range function and
// puts a step action at the start of every defined template of the set, so
// each iteration and each call spends one step (see MaxSteps). It
// runs once, at parse, before any clone shares the trees.
func instrumentTemplate(t *template.Template) {
	for _, tt := range t.Templates() {
		if tt.Tree == nil || tt.Tree.Root == nil {
			continue
		}
		instrumentList(tt.Tree, tt.Tree.Root)
		if tt.Name() != t.Name() { // the root runs once; recursion into it is refused
			prependStep(tt.Tree, tt.Tree.Root, tt.Tree.Root.Position())
		}
	}
}

func instrumentList(tree *parse.Tree, l *parse.ListNode) {
	if l == nil {
		return
	}
	for _, n := range l.Nodes {
		switch x := n.(type) {
		case *parse.IfNode:
			instrumentList(tree, x.List)
			instrumentList(tree, x.ElseList)
		case *parse.WithNode:
			instrumentList(tree, x.List)
			instrumentList(tree, x.ElseList)
		case *parse.RangeNode:
			instrumentList(tree, x.List)
			instrumentList(tree, x.ElseList)
			id := parse.NewIdentifier(tmplRangeFunc).SetTree(tree).SetPos(x.Pos)
			x.Pipe.Cmds = append(x.Pipe.Cmds, &parse.CommandNode{NodeType: parse.NodeCommand, Pos: x.Pos, Args: []parse.Node{id}})
		}
	}
}

func prependStep(tree *parse.Tree, l *parse.ListNode, pos parse.Pos) {
	id := parse.NewIdentifier(tmplStepFunc).SetTree(tree).SetPos(pos)
	cmd := &parse.CommandNode{NodeType: parse.NodeCommand, Pos: pos, Args: []parse.Node{id}}
	// {{ $v := step }}: a declaration, so nothing is printed.
	v := &parse.VariableNode{NodeType: parse.NodeVariable, Pos: pos, Ident: []string{tmplStepVar}}
	pipe := &parse.PipeNode{NodeType: parse.NodePipe, Pos: pos, Decl: []*parse.VariableNode{v}, Cmds: []*parse.CommandNode{cmd}}
	action := &parse.ActionNode{NodeType: parse.NodeAction, Pos: pos, Pipe: pipe}
	l.Nodes = append([]parse.Node{action}, l.Nodes...)
}

// checkTemplateCalls refuses a template set whose defined templates call
// each other in a cycle, or whose calls, expanded from the root, exceed
// MaxSteps (a chain of defines that each call the next twice). A
// call inside a range counts once here; the step budget bounds it at
// execution.
func checkTemplateCalls(t *template.Template) error {
	c := callCounter{t: t, count: map[string]int{}, active: map[string]bool{}}
	n, err := c.calls(t.Name())
	if err != nil {
		return err
	}
	if n > MaxSteps {
		return fmt.Errorf("template: %s: makes %d template calls, over the template step budget of %d", t.Name(), n, MaxSteps)
	}
	return nil
}

type callCounter struct {
	t      *template.Template
	count  map[string]int // memoized calls made by one execution of a template
	active map[string]bool
}

// calls returns how many template calls one execution of name makes,
// capped just above MaxSteps.
func (c *callCounter) calls(name string) (int, error) {
	if n, ok := c.count[name]; ok {
		return n, nil
	}
	if c.active[name] {
		return 0, fmt.Errorf("template: %s: template %q calls itself; recursive templates are not supported", c.t.Name(), name)
	}
	tt := c.t.Lookup(name)
	if tt == nil || tt.Tree == nil {
		return 0, nil // text/template reports an undefined template at execution
	}
	c.active[name] = true
	var callees []string
	collectCalls(tt.Tree.Root, &callees)
	total := 0
	for _, callee := range callees {
		n, err := c.calls(callee)
		if err != nil {
			return 0, err
		}
		total = min(total+1+n, MaxSteps+1)
	}
	c.active[name] = false
	c.count[name] = total
	return total, nil
}

// collectCalls appends the name of every {{ template }} under n.
func collectCalls(n parse.Node, out *[]string) {
	switch x := n.(type) {
	case *parse.ListNode:
		if x == nil {
			return
		}
		for _, c := range x.Nodes {
			collectCalls(c, out)
		}
	case *parse.TemplateNode:
		*out = append(*out, x.Name)
	case *parse.IfNode:
		collectCalls(x.List, out)
		collectCalls(x.ElseList, out)
	case *parse.RangeNode:
		collectCalls(x.List, out)
		collectCalls(x.ElseList, out)
	case *parse.WithNode:
		collectCalls(x.List, out)
		collectCalls(x.ElseList, out)
	}
}
