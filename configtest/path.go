package configtest

import (
	"fmt"
	"strconv"
	"strings"
)

// segment is one step of a path: a mapping key or a list index.
type segment struct {
	key   string
	index int
	isIdx bool
}

// parsePath reads a path: keys separated by dots, [n] for a list index,
// ["key"] (or ['key']) for a key holding dots or brackets:
// status.conditions[0].type, metadata.annotations["hyperfleet.io/generation"].
func parsePath(s string) ([]segment, error) {
	if s == "" {
		return nil, fmt.Errorf("empty path")
	}
	var out []segment
	for i := 0; i < len(s); {
		switch s[i] {
		case '[':
			seg, n, err := bracket(s[i:])
			if err != nil {
				return nil, fmt.Errorf("path %q: %v", s, err)
			}
			out = append(out, seg)
			i += n
		case '.':
			if i == 0 || i == len(s)-1 || s[i+1] == '.' || s[i+1] == '[' {
				return nil, fmt.Errorf("path %q: empty key", s)
			}
			i++
		default:
			j := strings.IndexAny(s[i:], ".[")
			if j < 0 {
				j = len(s) - i
			}
			out = append(out, segment{key: s[i : i+j]})
			i += j
		}
	}
	return out, nil
}

// bracket reads [n], ["key"] or ['key'] at the start of s and how many
// bytes it took.
func bracket(s string) (segment, int, error) {
	end := -1
	if len(s) > 1 && (s[1] == '"' || s[1] == '\'') {
		q := s[1]
		if k := strings.IndexByte(s[2:], q); k >= 0 && 2+k+1 < len(s) && s[2+k+1] == ']' {
			return segment{key: s[2 : 2+k]}, 2 + k + 2, nil
		}
		return segment{}, 0, fmt.Errorf("unterminated [%c...%c]", q, q)
	}
	end = strings.IndexByte(s, ']')
	if end < 0 {
		return segment{}, 0, fmt.Errorf("unterminated [")
	}
	n, err := strconv.Atoi(s[1:end])
	if err != nil || n < 0 {
		return segment{}, 0, fmt.Errorf("[%s]: an index is a whole number; quote a key: [\"%s\"]", s[1:end], s[1:end])
	}
	return segment{index: n, isIdx: true}, end + 1, nil
}

// lookup follows path in v; ok false when a step is missing.
func lookup(v any, path []segment) (any, bool) {
	for _, seg := range path {
		switch x := v.(type) {
		case map[string]any:
			if seg.isIdx {
				return nil, false
			}
			e, ok := x[seg.key]
			if !ok {
				return nil, false
			}
			v = e
		case []any:
			if !seg.isIdx || seg.index >= len(x) {
				return nil, false
			}
			v = x[seg.index]
		default:
			return nil, false
		}
	}
	return v, true
}
