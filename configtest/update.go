package configtest

import (
	"bytes"
	"fmt"
	"os"
	"regexp"

	"gopkg.in/yaml.v3"
)

// rewriteCase sets every expectation the case did not meet to what it
// produced (a regular expression to one matching the message exactly, an
// absent value to null), and reports whether every one was rewritten.
func rewriteCase(c *caseReport) bool {
	all := true
	for _, s := range c.steps {
		for _, m := range s.mismatches {
			if m.node == nil {
				all = false
				continue
			}
			v := m.actual
			if !m.found {
				v = nil
			}
			if m.regexp {
				if msg, ok := v.(string); ok {
					v = "^" + regexp.QuoteMeta(msg) + "$"
				}
			}
			if err := setNode(m.node, v); err != nil {
				all = false
			}
		}
	}
	return all
}

// setNode replaces a node's value, keeping its comments and its flow
// style.
func setNode(n *yaml.Node, v any) error {
	var nn yaml.Node
	if err := nn.Encode(v); err != nil {
		return err
	}
	nn.HeadComment, nn.LineComment, nn.FootComment = n.HeadComment, n.LineComment, n.FootComment
	if n.Style&yaml.FlowStyle != 0 && (nn.Kind == yaml.MappingNode || nn.Kind == yaml.SequenceNode) {
		nn.Style |= yaml.FlowStyle
	}
	nn.Line, nn.Column = n.Line, n.Column
	*n = nn
	return nil
}

// writeFile writes the test file's document back, with its comments and
// key order, indented by two spaces.
func writeFile(t *loaded) error {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(t.root); err != nil {
		return fmt.Errorf("%s: --update: %w", t.path, err)
	}
	if err := enc.Close(); err != nil {
		return fmt.Errorf("%s: --update: %w", t.path, err)
	}
	st, err := os.Stat(t.path)
	if err != nil {
		return fmt.Errorf("%s: --update: %w", t.path, err)
	}
	if err := os.WriteFile(t.path, b.Bytes(), st.Mode().Perm()); err != nil {
		return fmt.Errorf("%s: --update: %w", t.path, err)
	}
	return nil
}
