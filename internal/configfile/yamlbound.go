package configfile

import (
	"fmt"

	"gopkg.in/yaml.v3"
)

// Bounds of one YAML document once every alias and merge key is expanded.
// yaml.v3 parses aliases without expanding them; decoding expands them, so a
// few hundred bytes of nested aliases can stand for billions of nodes (or,
// through an anchor that contains an alias to itself, for an infinite
// tree). Every config and ref file is checked against these bounds before
// anything decodes it.
const (
	// MaxYAMLNodes bounds the nodes of the expanded document.
	MaxYAMLNodes = 100_000
	// MaxYAMLDepth bounds the nesting of the expanded document.
	MaxYAMLDepth = 100
)

// yamlError is a YAML problem at a line (0: the whole file).
type YAMLError struct {
	Line int
	Msg  string
	// Bound is set when the document exceeds MaxYAMLNodes or MaxYAMLDepth
	// or contains itself: no rendering can make such a file acceptable.
	Bound bool
	// Extra is set when the file holds a second document.
	Extra bool
}

func (e *YAMLError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	}
	return e.Msg
}

// checkYAMLExpansion walks the node tree as a decoder would, every alias
// standing for its anchored node, and fails when that tree would have more
// than MaxYAMLNodes nodes, be nested deeper than MaxYAMLDepth, or contain
// itself. The size of every anchored node is computed once, so the walk
// costs the size of the parsed tree, not of the expanded one.
func checkYAMLExpansion(root *yaml.Node) error {
	w := expansionWalk{memo: map[*yaml.Node]expansion{}, open: map[*yaml.Node]bool{}}
	_, err := w.walk(root, 0)
	return err
}

type expansion struct{ nodes, height int }

type expansionWalk struct {
	memo map[*yaml.Node]expansion // anchored nodes already measured
	open map[*yaml.Node]bool      // anchored nodes being measured
}

// walk measures n, found at depth (0: the document).
func (w *expansionWalk) walk(n *yaml.Node, depth int) (expansion, error) {
	if depth > MaxYAMLDepth {
		return expansion{}, &YAMLError{Bound: true, Line: n.Line, Msg: fmt.Sprintf("nested deeper than %d levels (config.MaxYAMLDepth)", MaxYAMLDepth)}
	}
	if n.Kind == yaml.AliasNode {
		return w.alias(n, depth)
	}
	if e, ok := w.memo[n]; ok {
		return e, w.fits(n, e, depth)
	}
	if n.Anchor != "" {
		w.open[n] = true
		defer delete(w.open, n)
	}
	e := expansion{nodes: 1}
	for _, c := range n.Content {
		ce, err := w.walk(c, depth+1)
		if err != nil {
			return expansion{}, err
		}
		e.nodes += ce.nodes
		e.height = max(e.height, ce.height+1)
		if err := w.fits(n, e, depth); err != nil {
			return expansion{}, err
		}
	}
	if n.Anchor != "" {
		w.memo[n] = e
	}
	return e, nil
}

// alias measures an alias as the node it stands for.
func (w *expansionWalk) alias(n *yaml.Node, depth int) (expansion, error) {
	t := n.Alias
	if t == nil {
		return expansion{nodes: 1}, nil
	}
	if w.open[t] {
		return expansion{}, &YAMLError{Bound: true, Line: n.Line, Msg: fmt.Sprintf("alias *%s refers to a node that contains it (anchor &%s, line %d): it would expand forever", n.Value, t.Anchor, t.Line)}
	}
	e, err := w.walk(t, depth)
	if err != nil {
		return expansion{}, err
	}
	return e, w.fits(n, e, depth)
}

func (w *expansionWalk) fits(n *yaml.Node, e expansion, depth int) error {
	if e.nodes > MaxYAMLNodes {
		return &YAMLError{Bound: true, Line: n.Line, Msg: fmt.Sprintf("aliases and merge keys expand to more than %d YAML nodes (config.MaxYAMLNodes)", MaxYAMLNodes)}
	}
	if depth+e.height > MaxYAMLDepth {
		return &YAMLError{Bound: true, Line: n.Line, Msg: fmt.Sprintf("nested deeper than %d levels once aliases are expanded (config.MaxYAMLDepth)", MaxYAMLDepth)}
	}
	return nil
}
