package configfile

import (
	"strings"

	"gopkg.in/yaml.v3"
)

// Segment is a run of a YAML scalar's text that stands on one line of its
// file: the text's byte offset Start is at file line Line, column Col
// (1-based), and Source is that line as written (for a caret).
type Segment struct {
	Start     int
	Line, Col int
	Source    string
}

// ScalarSegments maps a scalar's text onto the file's lines (lines: the
// file split at "\n"). A scalar on one line is one segment from its first
// character (after the quote). A block scalar (| or >) starts on the line
// after its header, each line at the block's indentation; a folded block
// or a flow scalar over several lines joins them with one byte each (a
// space or a newline), so each file line starts one byte after the
// previous one's text ends. Escapes in a double-quoted scalar are not
// undone: its columns past one are near, not exact.
func ScalarSegments(n *yaml.Node, lines []string) []Segment {
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
	var segs []Segment
	first, indent := n.Line, 0
	if block {
		first = n.Line + 1
		indent = len(src(first)) - len(strings.TrimLeft(src(first), " "))
	}
	off := 0
	for l := first; l <= len(lines) && off <= len(n.Value); l++ {
		text := src(l)
		lead := len(text) - len(strings.TrimLeft(text, " "))
		start := lead
		switch {
		case block && strings.TrimSpace(text) != "" && lead < indent:
			return segs // the block ended
		case block:
			start = indent
		case l == n.Line:
			start = col - 1
		}
		start = min(start, len(text))
		segs = append(segs, Segment{Start: off, Line: l, Col: start + 1, Source: text})
		off += len(text) - start + 1
	}
	return segs
}

// SegmentAt maps a 1-based line and 0-based byte column of a scalar's
// text src onto its file: the segment holding it and the file column.
func SegmentAt(segs []Segment, src string, line, col int) (Segment, int, bool) {
	off := 0
	for i := 1; i < line; i++ {
		j := strings.IndexByte(src[off:], '\n')
		if j < 0 {
			return Segment{}, 0, false
		}
		off += j + 1
	}
	off += col
	seg := -1
	for i, s := range segs {
		if s.Start <= off {
			seg = i
		}
	}
	if seg < 0 {
		return Segment{}, 0, false
	}
	s := segs[seg]
	return s, s.Col + off - s.Start, true
}

// Caret is a file line and a caret under column col (1-based), each
// indented by indent; "" without a line.
func Caret(source string, col int, indent string) string {
	if source == "" || col < 1 {
		return ""
	}
	src := strings.ReplaceAll(source, "\t", " ")
	return indent + src + "\n" + indent + strings.Repeat(" ", min(col-1, len(src))) + "^"
}
