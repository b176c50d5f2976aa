package tmpl

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"

	"github.com/bundle-adapter/bundle-adapter/internal/configfile"
)

// Origin is where a template's text stands in the file it was written in,
// so that an error names the file's line and column, not the text's: a
// template in a YAML scalar starts after its key, a block scalar's text
// starts on the next line, and a folded one joins several file lines
// into one line of text (configfile.ScalarSegments).
type Origin struct {
	File     string
	Segments []configfile.Segment
}

// SetOrigin records where the template stands in its file (see Origin);
// errors then start with FILE:LINE:COL and carry the file's line for a
// caret (SpotError). Call it at load, before the template is shared.
func (t *Template) SetOrigin(o Origin) {
	t.origin = &o
	if len(o.Segments) > 0 {
		t.where = fmt.Sprintf("%s:%d", o.File, o.Segments[0].Line)
	}
}

// ParseAt is Parse for a template that stands at o in its file: a parse
// error names the file's line and column, and so do the template's
// execution errors (SetOrigin). A nil o is Parse.
func ParseAt(name, src string, o *Origin) (*Template, error) {
	t, err := Parse(name, src)
	if o == nil {
		return t, err
	}
	if err != nil {
		return nil, (&Template{Name: name, src: src, origin: o}).spotError(err)
	}
	t.SetOrigin(*o)
	return t, nil
}

// SpotError is an error at a place of a config file: FILE:LINE:COL, and
// that line as written, so a command line can draw a caret under it
// (Caret).
type SpotError struct {
	File      string
	Line, Col int
	Source    string
	Err       error
}

func (e *SpotError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %v", e.File, e.Line, e.Col, e.Err)
}

func (e *SpotError) Unwrap() error { return e.Err }

// Caret is the file line of err's spot and a caret under its column, each
// line indented by indent; "" when err has no spot.
func Caret(err error, indent string) string {
	var se *SpotError
	if !errors.As(err, &se) {
		return ""
	}
	return configfile.Caret(se.Source, se.Col, indent)
}

// tmplPlace finds "NAME:LINE:COL" (an execution error) or "NAME:LINE" (a
// parse error) right after "template: " in text/template's messages.
var tmplPlace = regexp.MustCompile(`^template: (.*?):(\d+)(?::(\d+))?: `)

// spotError puts err at its place in the file when the template's origin
// is known; any other error, or a template without origin, is returned as
// it is.
func (t *Template) spotError(err error) error {
	if err == nil || t.origin == nil {
		return err
	}
	var se *SpotError
	if errors.As(err, &se) {
		return err
	}
	m := tmplPlace.FindStringSubmatch(err.Error())
	line, col := 1, 0
	if m != nil && m[1] == t.Name {
		line, _ = strconv.Atoi(m[2])
		if m[3] != "" {
			col, _ = strconv.Atoi(m[3])
		}
	}
	return SpotAt(t.origin, t.src, line, col, err)
}

// SpotAt is err at line (1-based) and col (0-based byte) of a template's
// text src that stands at o in its file; err itself when o cannot place it.
func SpotAt(o *Origin, src string, line, col int, err error) error {
	s, fcol, ok := configfile.SegmentAt(o.Segments, src, line, col)
	if !ok {
		return err
	}
	return &SpotError{File: o.File, Line: s.Line, Col: fcol, Source: s.Source, Err: err}
}
