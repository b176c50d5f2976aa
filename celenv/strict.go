package celenv

import (
	"slices"

	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/operators"
	"github.com/google/cel-go/common/types"
)

// unguardedReads lists, sorted and once each, the fields x.f of
// identifiers x that the expression reads without optional selection (x.f
// outside has(), x["f"]; f is "*" for a key that is not a literal string)
// and never tests anywhere in it (has(x.f), x.?f, x[?"f"]). See
// Expr.Unguarded.
func unguardedReads(root ast.Expr) []string {
	var reads, guards []string
	ast.PreOrderVisit(root, ast.NewExprVisitor(func(x ast.Expr) {
		switch x.Kind() {
		case ast.SelectKind:
			s := x.AsSelect()
			if p, ok := identField(s.Operand(), s.FieldName()); ok {
				if s.IsTestOnly() {
					guards = append(guards, p)
				} else {
					reads = append(reads, p)
				}
			}
		case ast.CallKind:
			c := x.AsCall()
			if len(c.Args()) != 2 || c.Args()[0].Kind() != ast.IdentKind {
				return
			}
			key := "*"
			if c.Args()[1].Kind() == ast.LiteralKind {
				if s, ok := c.Args()[1].AsLiteral().(types.String); ok {
					key = string(s)
				}
			}
			p, _ := identField(c.Args()[0], key)
			switch c.FunctionName() {
			case operators.Index:
				reads = append(reads, p)
			case operators.OptSelect, operators.OptIndex:
				guards = append(guards, p)
			}
		}
	}))
	var out []string
	for _, p := range reads {
		if !slices.Contains(guards, p) && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// identField is "x.f" when operand is the identifier x.
func identField(operand ast.Expr, field string) (string, bool) {
	if operand.Kind() != ast.IdentKind {
		return "", false
	}
	return operand.AsIdent() + "." + field, true
}
