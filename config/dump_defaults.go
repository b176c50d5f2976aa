package config

import (
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// effectiveDefaults rewrites a dumped config tree (root: the YAML mapping
// of one file, bounds keyed by YAML path from that root) so that it shows
// the value in effect for every leaf left at zero whose bound names a
// default (Bound.Zero): a default that is a value of the leaf's kind
// ("10s", "20", "adaptive") replaces the zero, with the comment
// "default"; one that is described ("the client's default", "no pings")
// stays zero, with the comment "0: <description>". So a reader of
// `config dump` never has to know that 0 means 10 seconds.
func effectiveDefaults(root *yaml.Node, bounds map[string]Bound) {
	walkLeaves(root, "", func(path string, leaf *yaml.Node) {
		b, ok := bounds[path]
		if !ok || b.Zero == "" || !zeroScalar(leaf.Value) {
			return
		}
		if sameKind(leaf.Value, b.Zero) {
			leaf.Value, leaf.Tag, leaf.Style = b.Zero, "", 0
			leaf.LineComment = "default"
			return
		}
		leaf.LineComment = "0: " + b.Zero
	})
}

// walkLeaves calls fn with the dotted path of every scalar of mappings
// under n (sequences are not walked: no bounded leaf is in one).
func walkLeaves(n *yaml.Node, path string, fn func(string, *yaml.Node)) {
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			walkLeaves(c, path, fn)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			p := n.Content[i].Value
			if path != "" {
				p = path + "." + p
			}
			walkLeaves(n.Content[i+1], p, fn)
		}
	case yaml.ScalarNode:
		fn(path, n)
	}
}

// zeroScalar reports whether a dumped scalar is its kind's zero.
func zeroScalar(v string) bool {
	switch v {
	case "", "0", "0s", "0.0", "null":
		return true
	}
	return false
}

// sameKind reports whether def can stand where zero stood: a duration for
// a duration, a number for a number, a single word for a string.
func sameKind(zero, def string) bool {
	switch zero {
	case "0s":
		_, err := time.ParseDuration(def)
		return err == nil
	case "0", "0.0":
		_, err := strconv.ParseFloat(def, 64)
		return err == nil
	}
	return def != "" && !strings.ContainsAny(def, " .'")
}
