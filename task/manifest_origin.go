package task

import (
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/bundle-adapter/bundle-adapter/tmpl"
)

// manifestOrigins maps the template name (file:YAML path, as
// manifestCompiler names them) of every string scalar of a ref file that
// holds "{{" to where its text stands in the file, so that template errors
// name the file's line and column (issue 46, "errors at the spot"). A file
// that yaml cannot parse into nodes gets none: errors then name the YAML
// path only, as before.
func manifestOrigins(file string, data []byte) map[string]*tmpl.Origin {
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 {
		return nil
	}
	lines := strings.Split(string(data), "\n")
	out := map[string]*tmpl.Origin{}
	c := manifestCompiler{file: file}
	var walk func(n *yaml.Node, path string)
	walk = func(n *yaml.Node, path string) {
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				walk(n.Content[i+1], manifestKeyPath(path, n.Content[i].Value))
			}
		case yaml.SequenceNode:
			for i, item := range n.Content {
				walk(item, manifestIndexPath(path, i))
			}
		case yaml.ScalarNode:
			if strings.Contains(n.Value, "{{") {
				out[c.name(path)] = &tmpl.Origin{File: file, Segments: scalarSegments(n, lines)}
			}
		}
	}
	walk(doc.Content[0], "")
	return out
}

// scalarSegments maps a scalar's text onto the file's lines. A scalar on
// one line is one segment from its first character (after the quote). A
// block scalar (| or >) starts on the line after its header, each line at
// the block's indentation; a folded block or a flow scalar over several
// lines joins them with one byte each (a space or a newline), so each file
// line starts one byte after the previous one's text ends. Escapes in a
// double-quoted scalar are not undone: its columns past one are near.
func scalarSegments(n *yaml.Node, lines []string) []tmpl.Segment {
	src := func(l int) string {
		if l >= 1 && l <= len(lines) {
			return lines[l-1]
		}
		return ""
	}
	col := n.Column
	if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 {
		col++
	}
	block := n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0
	var segs []tmpl.Segment
	first, indent := n.Line, 0
	if block {
		first = n.Line + 1
		indent = len(src(first)) - len(strings.TrimLeft(src(first), " "))
	}
	off := 0
	for l := first; l <= len(lines) && off <= len(n.Value); l++ {
		text := src(l)
		start := indent
		if !block && l == n.Line {
			start = col - 1
		} else if !block {
			start = len(text) - len(strings.TrimLeft(text, " "))
		}
		if block && strings.TrimSpace(text) != "" && len(text)-len(strings.TrimLeft(text, " ")) < indent {
			break // the block ended
		}
		start = min(start, len(text))
		segs = append(segs, tmpl.Segment{Start: off, Line: l, Col: start + 1, Source: text})
		off += len(text) - start + 1
	}
	return segs
}
