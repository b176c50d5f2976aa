package configtest

import (
	"reflect"

	"gopkg.in/yaml.v3"

	"github.com/bundle-adapter/bundle-adapter/internal/configfile"
)

// mismatch is one expectation a step did not meet.
type mismatch struct {
	what     string // where, as the expectation's path: resources.job.operation
	line     int
	expected any
	actual   any
	found    bool       // false: the actual value does not exist
	node     *yaml.Node // the expected value's node, rewritten by --update; nil: not rewritable
	regexp   bool       // expected is a regular expression the actual did not match
	note     string     // set instead of expected/actual when neither says it
}

// subset reports whether act holds exp: a mapping holds every key of the
// expected mapping (each value held in turn), a list has as many elements
// each holding the expected one, a scalar is equal, and null is held by an
// absent or null value.
func subset(exp, act any) bool {
	switch e := exp.(type) {
	case map[string]any:
		a, ok := act.(map[string]any)
		if !ok {
			return false
		}
		for k, ev := range e {
			av, ok := a[k]
			if !ok && ev != nil {
				return false
			}
			if !subset(ev, av) {
				return false
			}
		}
		return true
	case []any:
		a, ok := act.([]any)
		if !ok || len(a) != len(e) {
			return false
		}
		for i := range e {
			if !subset(e[i], a[i]) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(exp, act)
}

// match compares one expected value (its node n, decoded as exp) with the
// actual one, and returns a mismatch per leaf that differs: descending
// into mappings and lists while both sides have the shape, so --update
// rewrites only what differs and a diff names the exact path.
func match(what string, n *yaml.Node, exp, act any, found bool) []mismatch {
	n = configfile.Resolve(n)
	if exp == nil {
		if found && act != nil {
			return []mismatch{{what: what, line: n.Line, expected: nil, actual: act, found: true, node: n}}
		}
		return nil
	}
	if found && subset(exp, act) {
		return nil
	}
	whole := []mismatch{{what: what, line: n.Line, expected: exp, actual: act, found: found, node: n}}
	switch e := exp.(type) {
	case map[string]any:
		a, ok := act.(map[string]any)
		if !found || !ok || n.Kind != yaml.MappingNode || hasMergeKey(n) {
			return whole
		}
		var out []mismatch
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i].Value
			av, ok := a[k]
			out = append(out, match(what+keyPath(k), n.Content[i+1], e[k], av, ok)...)
		}
		return out
	case []any:
		a, ok := act.([]any)
		if !found || !ok || len(a) != len(e) || n.Kind != yaml.SequenceNode {
			return whole
		}
		var out []mismatch
		for i := range e {
			out = append(out, match(configfile.IndexPath(what, i), n.Content[i], e[i], a[i], true)...)
		}
		return out
	}
	return whole
}

func hasMergeKey(n *yaml.Node) bool {
	for i := 0; i < len(n.Content); i += 2 {
		if n.Content[i].Value == "<<" {
			return true
		}
	}
	return false
}

// keyPath is ".key", or `["key"]` when the key holds a dot or a bracket.
func keyPath(k string) string {
	for _, r := range k {
		if r == '.' || r == '[' || r == ']' {
			return `["` + k + `"]`
		}
	}
	return "." + k
}
