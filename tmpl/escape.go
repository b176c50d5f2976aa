package tmpl

import (
	"fmt"
	"github.com/bundle-adapter/bundle-adapter/internal/configfile"
	"text/template"
	"text/template/parse"
)

// Contextual escaping of api_call templates.
//
// An api_call url or body is a template whose values come from events and
// API answers, that is from outside. Such a value must never change the
// shape of what is sent: a cluster id "c1?x=" must not end the path, a name
// holding `", "x": "y` must not add keys to a JSON body. As html/template
// does for HTML, the parse tree is rewritten once at load: every action
// that prints gets one more command at the end of its pipeline, an escaper
// chosen by where the action sits in the literal text around it (see
// escapeURLTree and escapeJSONTree). The escapers are not part of the
// documented function set; their names cannot collide with it.

// escapeFuncs are the escapers the rewritten pipelines call.
var escapeFuncs = template.FuncMap{
	escURLSegment: urlSegmentEscaper,
	escURLQuery:   urlQueryEscaper,
	escJSONString: jsonStringEscaper,
	escJSONValue:  jsonValueEscaper,
}

const (
	escURLSegment = "_url_path_segment"
	escURLQuery   = "_url_query_value"
	escJSONString = "_json_string_content"
	escJSONValue  = "_json_value"
)

// parseEscaped parses src like Parse, then lets rewrite add the
// escapers to the tree. A literal needs no escaping.
func parseEscaped(name, src string, rewrite func(*parse.Tree) error) (*Template, error) {
	t, err := Parse(name, src)
	if err != nil || t.Literal {
		return t, err
	}
	t.tmpl.Funcs(escapeFuncs)
	if len(t.tmpl.Templates()) > 1 {
		return nil, fmt.Errorf("{{define}} is not supported here: the values of a defined template could not be escaped for where they are used")
	}
	if err := rewrite(t.tmpl.Tree); err != nil {
		return nil, err
	}
	return t, nil
}

// appendEscaper makes the action's pipeline end with a call of fn.
func appendEscaper(a *parse.ActionNode, fn string) {
	id := parse.NewIdentifier(fn).SetPos(a.Pos)
	a.Pipe.Cmds = append(a.Pipe.Cmds, &parse.CommandNode{NodeType: parse.NodeCommand, Pos: a.Pos, Args: []parse.Node{id}})
}

// prints reports whether an action writes output (it is not a variable
// declaration or assignment).
func prints(a *parse.ActionNode) bool { return len(a.Pipe.Decl) == 0 }

// errTemplateCall refuses {{template}} where values must be escaped.
func errTemplateCall(where string) error {
	return fmt.Errorf("{{template}} is not supported in %s: its values could not be escaped for where they are used", where)
}

// printed is how text/template would print v; nil is an error, since it
// would print "<no value>".
func printed(v any) (string, error) {
	if v == nil {
		return "", fmt.Errorf("a value is missing (null)")
	}
	return fmt.Sprint(v), nil
}

// compileTextWith compiles t in place with parse (ParseURL,
// ParseJSON); an empty text stays nil.
func CompileTextWith(l *configfile.ErrorList, t *Text, parse func(name, src string) (*Template, error)) {
	if t.Src == "" {
		return
	}
	tmpl, err := parse(t.Path, t.Src)
	if err != nil {
		l.Add(t.Path, "%v", err)
		return
	}
	tmpl.SetWhere(l.Where(t.Path))
	t.T = tmpl
}
