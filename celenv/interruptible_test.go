package celenv

import (
	"github.com/bundle-adapter/bundle-adapter/internal/configfile"
	"testing"
)

// TestUninterruptible: a compiled expression is Uninterruptible exactly
// when its tree, macros expanded, holds no comprehension (the only place a CEL
// evaluation checks its context), for type-checked expressions and for
// capture expressions, which are only parsed.
func TestUninterruptible(t *testing.T) {
	env, err := NewEnv([]string{"x", "items"})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		src           string
		comprehension bool
	}{
		{`x`, false},
		{`x.?a.orValue(1) + 2`, false},
		{`has(x.a) ? "y" : "n"`, false},
		{`toJson(x)`, false},
		{`now()`, false},
		{`items.all(i, i > 0)`, true},
		{`items.exists(i, i > 0)`, true},
		{`items.exists_one(i, i > 0)`, true},
		{`items.map(i, i * 2)`, true},
		{`items.filter(i, i > 0)`, true},
		{`x.?a.orValue([]).map(i, i)`, true},
		{`size(items) > 0 && [1].all(i, i == 1)`, true},
		{`items.sortBy(i, i)`, true},
	}
	for _, c := range cases {
		l := configfile.NewErrorList("task.yaml")
		checked := &Expr{Src: c.src, Path: "e"}
		env.Compile(l, checked)
		capture := &Expr{Src: c.src, Path: "c"}
		CompileResponseExpr(l, capture)
		if len(l.Errs) > 0 {
			t.Fatalf("%s: %v", c.src, l.Errs)
		}
		if checked.Uninterruptible == c.comprehension || capture.Uninterruptible == c.comprehension {
			t.Errorf("%s: Uninterruptible %v (checked), %v (capture), want %v", c.src, checked.Uninterruptible, capture.Uninterruptible, !c.comprehension)
		}
	}
}
