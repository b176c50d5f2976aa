package task

import (
	"github.com/bundle-adapter/bundle-adapter/celenv"
	"github.com/bundle-adapter/bundle-adapter/internal/configfile"
	"github.com/bundle-adapter/bundle-adapter/tmpl"
	"sort"
	"strings"
)

// BuildNode is one node of a compiled payload build. Exactly one of its
// fields is set: a literal, a template (string leaves), a CEL expression
// ({expression: ...} or {field: ...} leaves), a mapping or a list.
//
// A leaf may carry a default ({field: p, default: d}, {expression: e,
// default: d}), as in hyperfleet-adapter: when the evaluation fails (a
// missing field, any CEL error but the cost limit and the timeout, which
// stay errors) or yields null, the leaf is Default. Without a default a
// failing leaf is null, as hyperfleet-adapter builds it (logged and
// counted); a leaf reading resources.<name> without ? and without a
// default is a load warning.
type BuildNode struct {
	Literal    any
	Template   *tmpl.Template
	Expr       *celenv.Expr
	Default    any
	HasDefault bool
	Map        []BuildField
	List       []BuildNode
	IsMap      bool
	IsList     bool
}

// BuildField is one key of a mapping node; fields are sorted by key.
type BuildField struct {
	Key  string
	Node BuildNode
}

func compileBuild(l *configfile.ErrorList, env *celenv.Env, path string, raw any) BuildNode {
	switch x := raw.(type) {
	case string:
		return compileBuildString(l, path, x)
	case []any:
		n := BuildNode{IsList: true, List: make([]BuildNode, len(x))}
		for i, e := range x {
			n.List[i] = compileBuild(l, env, configfile.IndexPath(path, i), e)
		}
		return n
	case map[string]any:
		if e, ok := leafExpr(l, path, x); ok {
			env.Compile(l, e)
			d, hasDefault := x["default"]
			if hasDefault && d == nil {
				l.Add(configfile.JoinPath(path, "default"), "must be a value, not null (without a default a failing leaf is null)")
			}
			if reads := e.UnguardedOf("resources"); !hasDefault && len(reads) > 0 {
				l.Warn(path, "reads %s without ? or has() and has no default: while the resource is absent (before it is created, or when a precondition is not met) the leaf fails and is sent as null, as in hyperfleet-adapter; add a default or read resources.?<name>", strings.Join(reads, ", "))
			}
			return BuildNode{Expr: e, Default: d, HasDefault: hasDefault}
		}
		return compileBuildMap(l, env, path, x)
	default:
		return BuildNode{Literal: x}
	}
}

func compileBuildString(l *configfile.ErrorList, path, s string) BuildNode {
	t, err := tmpl.Parse(path, s)
	if err != nil {
		l.Add(path, "%v", err)
		return BuildNode{Literal: s}
	}
	if t.IsLiteral() {
		return BuildNode{Literal: s}
	}
	t.SetWhere(l.Where(path))
	return BuildNode{Template: t}
}

func compileBuildMap(l *configfile.ErrorList, env *celenv.Env, path string, m map[string]any) BuildNode {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	n := BuildNode{IsMap: true, Map: make([]BuildField, len(keys))}
	for i, k := range keys {
		n.Map[i] = BuildField{Key: k, Node: compileBuild(l, env, configfile.JoinPath(path, k), m[k])}
	}
	return n
}

// leafExpr recognizes {expression: "cel"} and {field: "a.b"} leaves, with
// an optional default. Other keys beside them are ignored with a warning,
// as hyperfleet-adapter ignores them; both field and expression is an error.
func leafExpr(l *configfile.ErrorList, path string, m map[string]any) (*celenv.Expr, bool) {
	fe, hasE := m["expression"].(string)
	ff, hasF := m["field"].(string)
	switch {
	case hasE && hasF:
		l.Add(path, "set field or expression, not both")
		return nil, false
	case !hasE && !hasF:
		return nil, false
	}
	k, src := "expression", fe
	if hasF {
		k, src = "field", ff
	}
	if len(m) > 1 {
		var extra []string
		for key := range m {
			if key != k && key != "default" {
				extra = append(extra, key)
			}
		}
		sort.Strings(extra)
		if len(extra) > 0 {
			l.Warn(path, "%s leaf: %v ignored (only default may go beside %s, as in hyperfleet-adapter)", k, extra, k)
		}
	}
	p := configfile.JoinPath(path, k)
	return &celenv.Expr{Src: src, Path: p, Line: l.LineOf(p)}, true
}
