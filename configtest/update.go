package configtest

import (
	"bytes"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// edit is one expectation to rewrite: its node and the value it gets.
type edit struct {
	node *yaml.Node
	v    any
}

// caseEdits are the rewrites of the expectations a case did not meet:
// each gets what the case produced (a regular expression one matching the
// message exactly, an absent value null). ok is false when some mismatch
// cannot be rewritten (an object that exists where none was expected).
func caseEdits(c *caseReport) (edits []edit, ok bool) {
	ok = true
	for _, s := range c.steps {
		for _, m := range s.mismatches {
			if m.node == nil {
				ok = false
				continue
			}
			v := m.actual
			if !m.found {
				v = nil
			}
			if m.regexp {
				if msg, isStr := v.(string); isStr {
					v = "^" + regexp.QuoteMeta(msg) + "$"
				}
			}
			edits = append(edits, edit{node: m.node, v: v})
		}
	}
	return edits, ok
}

// writeFile rewrites the test file with the edits. When every edit
// replaces a one-line scalar with a scalar, only those values change in
// the text: comments, blank lines and layout stay as they were. Otherwise
// the document is encoded again (comments and key order kept, blank lines
// and indentation normalized).
//
// The file is written through writeReplacing (a temporary file renamed
// over it; never through a link leaving its folder, never over a config or
// document the test uses). Edits of anchored or aliased values are refused
// (anchoredEdit), and so is a result that does not parse as YAML.
func writeFile(t *loaded, edits []edit) error {
	if err := anchoredEdit(t.root, edits); err != nil {
		return fmt.Errorf("%s: --update: %w", t.path, err)
	}
	out, ok := splice(t.data, edits)
	if !ok {
		for _, e := range edits {
			if err := setNode(e.node, e.v); err != nil {
				return fmt.Errorf("%s: --update: %w", t.path, err)
			}
		}
		var b bytes.Buffer
		enc := yaml.NewEncoder(&b)
		enc.SetIndent(2)
		if err := enc.Encode(t.root); err != nil {
			return fmt.Errorf("%s: --update: %w", t.path, err)
		}
		if err := enc.Close(); err != nil {
			return fmt.Errorf("%s: --update: %w", t.path, err)
		}
		out = b.Bytes()
	}
	var check yaml.Node
	if err := yaml.Unmarshal(out, &check); err != nil {
		return fmt.Errorf("%s: --update: not rewritten: the result would not parse: %w", t.path, err)
	}
	inputs := append(declaredInputs(t.path), t.docFiles()...)
	if err := writeReplacing(t.path, out, 0o644, inputs); err != nil {
		return fmt.Errorf("%s: --update: %w", t.path, err)
	}
	return nil
}

// splice replaces each edited scalar's text in data; ok false when an edit
// is not a one-line scalar replaced by a scalar.
func splice(data []byte, edits []edit) ([]byte, bool) {
	lines := strings.SplitAfter(string(data), "\n")
	sort.Slice(edits, func(i, j int) bool {
		a, b := edits[i].node, edits[j].node
		return a.Line > b.Line || (a.Line == b.Line && a.Column > b.Column)
	})
	for _, e := range edits {
		n := e.node
		text, isScalar := scalarText(e.v)
		if !isScalar || n.Kind != yaml.ScalarNode || n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 || n.Line < 1 || n.Line > len(lines) {
			return nil, false
		}
		line := lines[n.Line-1]
		start := byteOffset(line, n.Column-1)
		end, ok := scalarEnd(line, start, n)
		if !ok {
			return nil, false
		}
		lines[n.Line-1] = line[:start] + text + line[end:]
	}
	return []byte(strings.Join(lines, "")), true
}

// byteOffset is the byte offset of rune column col (0-based) in line.
func byteOffset(line string, col int) int {
	off := 0
	for i := 0; i < col && off < len(line); i++ {
		_, size := utf8.DecodeRuneInString(line[off:])
		off += size
	}
	return off
}

// scalarEnd finds where the scalar n that starts at start ends on its
// line; ok false when it does not end there (a multi-line scalar).
func scalarEnd(line string, start int, n *yaml.Node) (int, bool) {
	rest := line[start:]
	switch {
	case n.Style&yaml.DoubleQuotedStyle != 0:
		for i := 1; i < len(rest); i++ {
			switch rest[i] {
			case '\\':
				i++
			case '"':
				return start + i + 1, true
			}
		}
	case n.Style&yaml.SingleQuotedStyle != 0:
		for i := 1; i < len(rest); i++ {
			if rest[i] == '\'' {
				if i+1 < len(rest) && rest[i+1] == '\'' {
					i++
					continue
				}
				return start + i + 1, true
			}
		}
	default:
		if strings.HasPrefix(rest, n.Value) {
			return start + len(n.Value), true
		}
	}
	return 0, false
}

// plainSafe are strings written without quotes: they read back as the same
// string in block and in flow context.
var plainSafe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_./-]*$`)

// scalarText writes a scalar as YAML text valid in block and flow
// context; isScalar false for a mapping or list.
func scalarText(v any) (string, bool) {
	switch x := v.(type) {
	case nil:
		return "null", true
	case bool:
		return strconv.FormatBool(x), true
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), true
	case string:
		var probe any
		if plainSafe.MatchString(x) && yaml.Unmarshal([]byte(x), &probe) == nil && probe == x {
			return x, true
		}
		return strconv.Quote(x), true
	}
	return "", false
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
