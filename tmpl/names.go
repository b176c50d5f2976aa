package tmpl

import (
	"github.com/bundle-adapter/bundle-adapter/internal/configfile"
	"slices"
	"strconv"
	"strings"
	"text/template/parse"
)

// templateDataNames are the names every template's data holds besides the
// config's params, preconditions, captures and payloads.
var DataNames = []string{"adapter", "env", "event", "metadata"}

// RootNames returns the names the template reads from its data's top
// level: .x where dot is the data (outside range and with bodies) and $.x
// anywhere, in the order they appear. Names reached through index, or
// inside defined templates, are not listed.
func (t *Template) RootNames() []string {
	var names []string
	for _, f := range t.RootFields() {
		if f[len(f)-1] == "$" {
			names = append(names, "$."+f[0])
		} else {
			names = append(names, "."+f[0])
		}
	}
	return names
}

// rootFields are the field chains RootNames reads, each with its prefix
// ("." or "$") last: {"env", "REGION", "."} for .env.REGION.
func (t *Template) RootFields() [][]string {
	if t.tmpl == nil || t.tmpl.Tree == nil {
		return nil
	}
	var fields [][]string
	rootNamesList(t.tmpl.Tree.Root, true, &fields)
	return fields
}

func rootNamesList(l *parse.ListNode, dotIsRoot bool, out *[][]string) {
	if l == nil {
		return
	}
	for _, n := range l.Nodes {
		switch x := n.(type) {
		case *parse.ActionNode:
			rootNamesPipe(x.Pipe, dotIsRoot, out)
		case *parse.IfNode:
			rootNamesPipe(x.Pipe, dotIsRoot, out)
			rootNamesList(x.List, dotIsRoot, out)
			rootNamesList(x.ElseList, dotIsRoot, out)
		case *parse.RangeNode:
			rootNamesPipe(x.Pipe, dotIsRoot, out)
			rootNamesList(x.List, false, out)
			rootNamesList(x.ElseList, dotIsRoot, out)
		case *parse.WithNode:
			rootNamesPipe(x.Pipe, dotIsRoot, out)
			rootNamesList(x.List, false, out)
			rootNamesList(x.ElseList, dotIsRoot, out)
		case *parse.TemplateNode:
			rootNamesPipe(x.Pipe, dotIsRoot, out)
		}
	}
}

func rootNamesPipe(p *parse.PipeNode, dotIsRoot bool, out *[][]string) {
	if p == nil {
		return
	}
	for _, c := range p.Cmds {
		for _, a := range c.Args {
			rootNamesArg(a, dotIsRoot, out)
		}
	}
}

func rootNamesArg(n parse.Node, dotIsRoot bool, out *[][]string) {
	switch x := n.(type) {
	case *parse.FieldNode:
		if dotIsRoot {
			*out = append(*out, append(slices.Clone(x.Ident), "."))
		}
	case *parse.VariableNode:
		if x.Ident[0] == "$" && len(x.Ident) > 1 {
			*out = append(*out, append(slices.Clone(x.Ident[1:]), "$"))
		}
	case *parse.ChainNode:
		rootNamesArg(x.Node, dotIsRoot, out)
	case *parse.PipeNode:
		rootNamesPipe(x, dotIsRoot, out)
	}
}

// checkTemplateNames reports every root name t reads that the data of an
// event never holds, as a CEL typo is reported.
func CheckNames(l *configfile.ErrorList, t *Template, known []string) {
	seen := map[string]bool{}
	for _, ref := range t.RootNames() {
		name := ref[strings.IndexByte(ref, '.')+1:]
		if seen[ref] || slices.Contains(known, name) {
			continue
		}
		seen[ref] = true
		l.Add(t.Name, "template uses %s, which is not a param, precondition, capture, payload or built-in (%s)%s",
			ref, strings.Join(DataNames, ", "), suggestName(name, known))
	}
}

// suggestName names the closest known name when name looks like a typo.
func suggestName(name string, known []string) string {
	best, bestDist := "", 3
	for _, k := range known {
		if d := configfile.EditDistance(strings.ToLower(name), strings.ToLower(k)); d < bestDist || (d == bestDist && k < best) {
			best, bestDist = k, d
		}
	}
	if best == "" {
		return ""
	}
	return "; did you mean " + strconv.Quote(best) + "?"
}
