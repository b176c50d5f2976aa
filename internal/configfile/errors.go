package configfile

import (
	"fmt"
	"sort"
	"strings"
)

// FieldError is one problem found while loading a config file. It names the
// file, the YAML path of the offending field (e.g.
// "resources[1].lifecycle.recreate") and the line where that field starts.
type FieldError struct {
	File string
	Path string
	Line int
	Msg  string
	// Col is the 1-based column of the problem on Line, when known, and
	// Source that line as written (for a caret, Caret).
	Col    int
	Source string
}

func (e FieldError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
		if e.Col > 0 {
			fmt.Fprintf(&b, ":%d", e.Col)
		}
	}
	if e.Path != "" {
		b.WriteString(": ")
		b.WriteString(e.Path)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	return b.String()
}

// Errors is every problem found in one load, in file and line order. Loading
// never stops at the first problem: a user fixes all of them in one round.
type Errors []FieldError

func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// sorted returns the errors ordered by file, then line, then path.
func (es Errors) Sorted() Errors {
	out := append(Errors(nil), es...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].File != out[j].File {
			return out[i].File < out[j].File
		}
		if out[i].Line != out[j].Line {
			return out[i].Line < out[j].Line
		}
		return out[i].Path < out[j].Path
	})
	return out
}

// errorList collects FieldErrors for one file and knows the line of every
// YAML path that was decoded, so later semantic checks can point at lines too.
type ErrorList struct {
	file  string
	Lines map[string]int
	Errs  Errors
	Warns Errors
	// Source is the file's text split into lines, when read (ReadYAML):
	// what errors at a column quote.
	Source []string
}

func NewErrorList(file string) *ErrorList {
	return &ErrorList{file: file, Lines: map[string]int{}}
}

// add records a problem at path; the line is the one recorded for path or,
// failing that, for its nearest recorded parent.
func (l *ErrorList) Add(path, format string, args ...any) {
	l.Errs = append(l.Errs, FieldError{File: l.file, Path: path, Line: l.LineOf(path), Msg: fmt.Sprintf(format, args...)})
}

// warn records a load warning at path: the file loads, but a key means
// less here than its author may expect (see Config.Warnings).
func (l *ErrorList) Warn(path, format string, args ...any) {
	l.Warns = append(l.Warns, FieldError{File: l.file, Path: path, Line: l.LineOf(path), Msg: fmt.Sprintf(format, args...)})
}

// addAt records a problem at an explicit line.
func (l *ErrorList) AddAt(path string, line int, format string, args ...any) {
	l.Errs = append(l.Errs, FieldError{File: l.file, Path: path, Line: line, Msg: fmt.Sprintf(format, args...)})
}

// AddSpot records a problem at a line and column of the file, with that
// line as written (s: Segment.Source) for a caret.
func (l *ErrorList) AddSpot(path string, s Segment, col int, format string, args ...any) {
	l.Errs = append(l.Errs, FieldError{File: l.file, Path: path, Line: s.Line, Col: col, Source: s.Source, Msg: fmt.Sprintf(format, args...)})
}

func (l *ErrorList) LineOf(path string) int {
	for p := path; p != ""; p = ParentPath(p) {
		if n, ok := l.Lines[p]; ok {
			return n
		}
		// The decoder records a key as written: a camelCase key
		// (propagationPolicy) under its own spelling.
		if n, ok := l.Lines[camelLast(p)]; ok {
			return n
		}
	}
	return l.Lines[""]
}

// camelLast spells the last element of a YAML path in camelCase:
// "a.delete.propagation_policy" -> "a.delete.propagationPolicy".
func camelLast(p string) string {
	i := strings.LastIndexAny(p, ".[")
	last := p[i+1:]
	if !strings.Contains(last, "_") {
		return p
	}
	parts := strings.Split(last, "_")
	for j := 1; j < len(parts); j++ {
		if parts[j] != "" {
			parts[j] = strings.ToUpper(parts[j][:1]) + parts[j][1:]
		}
	}
	return p[:i+1] + strings.Join(parts, "")
}

// parentPath drops the last element of a YAML path: "a.b[2]" -> "a.b", "a.b" -> "a".
func ParentPath(p string) string {
	i := strings.LastIndexAny(p, ".[")
	if i < 0 {
		return ""
	}
	return p[:i]
}

func JoinPath(parent, key string) string {
	if parent == "" {
		return key
	}
	return parent + "." + key
}

func IndexPath(parent string, i int) string {
	return fmt.Sprintf("%s[%d]", parent, i)
}

func Errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }

// Where is "file:line" of path (the line recorded for path or its nearest
// parent), "file" when no line is known, "" without a file: the place a
// run-time error names, such as a template that reached a missing value.
func (l *ErrorList) Where(path string) string {
	line := l.LineOf(path)
	switch {
	case l.file == "":
		return ""
	case line <= 0:
		return l.file
	}
	return fmt.Sprintf("%s:%d", l.file, line)
}
