package configtest

import (
	"sort"

	"github.com/bundle-adapter/bundle-adapter/internal/configfile"
)

// check compares what a step produced with what it expects, and returns
// every expectation not met, in the order of the file.
func check(e *Expect, a *actual) []mismatch {
	var out []mismatch
	scalar := func(what string, v *Value, act any, found bool) {
		if v != nil {
			out = append(out, match(what, v.Node, v.V, act, found)...)
		}
	}
	scalar("execution_status", e.ExecutionStatus, a.result.ExecutionStatus, true)
	scalar("skipped", e.Skipped, a.result.Skipped, true)
	for name, r := range e.Resources {
		o, ok := a.resources[name]
		what := "resources" + keyPath(name)
		if r == nil {
			continue
		}
		scalar(what+".operation", r.Operation, string(o.Operation), ok)
		scalar(what+".state", r.State, string(o.State), ok)
		scalar(what+".reason", r.Reason, o.Reason, ok)
	}
	for typ, c := range e.Conditions {
		if c == nil {
			continue
		}
		out = append(out, checkCondition("conditions"+keyPath(typ), c, a, typ)...)
	}
	for p, v := range e.Data {
		act, found := lookupPath(a.payload, "data"+dotted(p), a.hasPay)
		scalar("data"+dotted(p), v, act, found)
	}
	for p, v := range e.Payload {
		act, found := lookupPath(a.payload, p, a.hasPay)
		scalar("payload"+dotted(p), v, act, found)
	}
	for name, v := range e.Objects {
		out = append(out, checkObjectExpect("objects"+keyPath(name), v, a.objects[name])...)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].line != out[j].line {
			return out[i].line < out[j].line
		}
		return column(out[i]) < column(out[j])
	})
	return out
}

// dotted joins an expectation path to its section's name.
func dotted(p string) string {
	if p != "" && p[0] == '[' {
		return p
	}
	return "." + p
}

func lookupPath(v any, p string, have bool) (any, bool) {
	if !have {
		return nil, false
	}
	segs, err := parsePath(p)
	if err != nil { // checked at load
		return nil, false
	}
	return lookup(v, segs)
}

// checkCondition finds the condition of type typ in the payload's
// conditions and compares status, reason and message.
func checkCondition(what string, c *ConditionExpect, a *actual, typ string) []mismatch {
	var cond map[string]any
	if list, ok := lookupPath(a.payload, "conditions", a.hasPay); ok {
		items, _ := list.([]any)
		for _, it := range items {
			if m, ok := it.(map[string]any); ok && m["type"] == typ {
				cond = m
				break
			}
		}
	}
	var out []mismatch
	field := func(name string, v *Value) {
		if v == nil {
			return
		}
		act, found := cond[name]
		out = append(out, match(what+"."+name, v.Node, v.V, act, found && cond != nil)...)
	}
	field("status", c.Status)
	field("reason", c.Reason)
	field("message", c.Message)
	if r := c.MessageRegexp; r != nil && r.Re != nil {
		msg, found := cond["message"].(string)
		if !found || !r.Re.MatchString(msg) {
			out = append(out, mismatch{what: what + ".message_regexp", line: r.Node.Line, expected: r.V,
				actual: cond["message"], found: found, node: r.Node, regexp: true})
		}
	}
	return out
}

// checkObjectExpect compares an object with the paths expected of it; a
// null expectation wants no object.
func checkObjectExpect(what string, v *Value, obj any) []mismatch {
	if v == nil || v.V == nil {
		if obj != nil {
			// Not rewritten by --update: a whole object is no expectation.
			return []mismatch{{what: what, line: v.Node.Line, expected: nil, actual: obj, found: true,
				note: "the object exists; expected none"}}
		}
		return nil
	}
	n := configfile.Resolve(v.Node)
	if obj == nil {
		return []mismatch{{what: what, line: n.Line, expected: v.V, node: v.Node, note: "no object; expected one"}}
	}
	var out []mismatch
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		segs, err := parsePath(k.Value)
		if err != nil {
			continue
		}
		act, found := lookup(obj, segs)
		var exp any
		if m, ok := v.V.(map[string]any); ok {
			exp = m[k.Value]
		}
		out = append(out, match(what+dotted(k.Value), val, exp, act, found)...)
	}
	return out
}

// column orders mismatches written on one line (a flow mapping).
func column(m mismatch) int {
	if m.node == nil {
		return 0
	}
	return m.node.Column
}
