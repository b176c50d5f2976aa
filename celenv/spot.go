package celenv

import (
	"fmt"
	"regexp"

	"github.com/google/cel-go/cel"

	"github.com/bundle-adapter/bundle-adapter/internal/configfile"
)

// compileError records a CEL compile error: at the file's line and column
// of its first issue when the expression's place in the file is known
// (e.Segments: through quoted, literal and folded YAML scalars), else at
// the expression's line; an undeclared name gets the nearest declared one
// of names as a did-you-mean.
func compileError(l *configfile.ErrorList, e *Expr, iss *cel.Issues, names []string) {
	msg := oneLine(iss.Err().Error()) + didYouMean(iss, names)
	if errs := iss.Errors(); len(errs) > 0 && e.Segments != nil {
		loc := errs[0].Location
		if s, col, ok := configfile.SegmentAt(e.Segments, e.Src, loc.Line(), loc.Column()); ok {
			l.AddSpot(e.Path, s, col, "CEL: %s", msg)
			return
		}
	}
	l.AddAt(e.Path, e.Line, "CEL: %s", msg)
}

var undeclared = regexp.MustCompile(`undeclared reference to '([^']+)'`)

// didYouMean is " (did you mean 'x'?)" for the first undeclared name of
// iss that is within a small edit distance of a declared one; "" else.
func didYouMean(iss *cel.Issues, names []string) string {
	for _, e := range iss.Errors() {
		m := undeclared.FindStringSubmatch(e.Message)
		if m == nil {
			continue
		}
		if best := nearest(m[1], names); best != "" {
			return fmt.Sprintf(" (did you mean '%s'?)", best)
		}
	}
	return ""
}

// nearest is the name of names closest to s by edit distance, when that
// distance is at most a third of s's length (at least 1), "" otherwise.
func nearest(s string, names []string) string {
	best, bestD := "", max(1, len(s)/3)+1
	for _, n := range names {
		if d := editDistance(s, n); d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance of a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
