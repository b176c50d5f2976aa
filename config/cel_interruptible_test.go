package config

import "testing"

// TestUninterruptible: a compiled expression is Uninterruptible exactly
// when its tree, macros expanded, holds no comprehension (the only place a CEL
// evaluation checks its context), for type-checked expressions and for
// capture expressions, which are only parsed.
func TestUninterruptible(t *testing.T) {
	env, err := newCELEnv([]string{"x", "items"})
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
		l := newErrorList("task.yaml")
		checked := &Expr{Src: c.src, Path: "e"}
		env.compile(l, checked)
		capture := &Expr{Src: c.src, Path: "c"}
		compileResponseExpr(l, capture)
		if len(l.errs) > 0 {
			t.Fatalf("%s: %v", c.src, l.errs)
		}
		if checked.Uninterruptible == c.comprehension || capture.Uninterruptible == c.comprehension {
			t.Errorf("%s: Uninterruptible %v (checked), %v (capture), want %v", c.src, checked.Uninterruptible, capture.Uninterruptible, !c.comprehension)
		}
	}
}
