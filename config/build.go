package config

import "sort"

// BuildNode is one node of a compiled payload build. Exactly one of its
// fields is set: a literal, a template (string leaves), a CEL expression
// ({expression: ...} or {field: ...} leaves), a mapping or a list.
type BuildNode struct {
	Literal  any
	Template *Template
	Expr     *Expr
	Map      []BuildField
	List     []BuildNode
	IsMap    bool
	IsList   bool
}

// BuildField is one key of a mapping node; fields are sorted by key.
type BuildField struct {
	Key  string
	Node BuildNode
}

func compileBuild(l *errorList, env *CELEnv, path string, raw any) BuildNode {
	switch x := raw.(type) {
	case string:
		return compileBuildString(l, path, x)
	case []any:
		n := BuildNode{IsList: true, List: make([]BuildNode, len(x))}
		for i, e := range x {
			n.List[i] = compileBuild(l, env, indexPath(path, i), e)
		}
		return n
	case map[string]any:
		if e, ok := leafExpr(l, path, x); ok {
			env.compile(l, e)
			return BuildNode{Expr: e}
		}
		return compileBuildMap(l, env, path, x)
	default:
		return BuildNode{Literal: x}
	}
}

func compileBuildString(l *errorList, path, s string) BuildNode {
	t, err := ParseTemplate(path, s)
	if err != nil {
		l.add(path, "%v", err)
		return BuildNode{Literal: s}
	}
	if t.IsLiteral() {
		return BuildNode{Literal: s}
	}
	return BuildNode{Template: t}
}

func compileBuildMap(l *errorList, env *CELEnv, path string, m map[string]any) BuildNode {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	n := BuildNode{IsMap: true, Map: make([]BuildField, len(keys))}
	for i, k := range keys {
		n.Map[i] = BuildField{Key: k, Node: compileBuild(l, env, joinPath(path, k), m[k])}
	}
	return n
}

// leafExpr recognizes {expression: "cel"} and {field: "a.b"} leaves.
func leafExpr(l *errorList, path string, m map[string]any) (*Expr, bool) {
	if len(m) != 1 {
		return nil, false
	}
	for k, v := range m {
		s, isString := v.(string)
		if !isString || (k != "expression" && k != "field") {
			return nil, false
		}
		p := joinPath(path, k)
		return &Expr{Src: s, Path: p, Line: l.lineOf(p)}, true
	}
	return nil, false
}
