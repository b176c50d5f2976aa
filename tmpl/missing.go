package tmpl

import (
	"errors"
	"fmt"
	"strings"
	"text/template"
	"text/template/parse"
)

// A missing value never renders.
//
// text/template prints a nil value, or a map entry that holds nil, as the
// text "<no value>" (missingkey=error only catches a key that is absent).
// An optional param without a value, a null field of an API answer, an
// index past what a map holds: each would put "<no value>" into an object
// that is then sent as if it were right. So Parse rewrites every
// action that prints: its pipeline ends with tmplValueFunc, which passes
// the value through unchanged and fails when it is nil, naming the action
// as written ({{ .releaseVersion }}). text/template adds the template's
// name (the file and YAML path) and the line and column of the action.
//
// A template that says what to do with a missing value keeps working:
// default, if, with, and (index . "name") inside them, and toJson (which
// writes null on purpose). Actions that only declare or assign a variable
// print nothing and are left alone.

// tmplValueFunc is the hidden function every printing action ends with.
// Like the budget's functions, the parse-time function map does not hold
// it, so a config file cannot call it.
const tmplValueFunc = "_bundleAdapterValue"

// ErrMissingValue is what a template fails with when an action would print
// a missing or null value (errors.Is); the error is a *MissingValueError.
var ErrMissingValue = errors.New("has no value (missing or null)")

// MissingValueError names the action that reached a missing value and
// where it stands: the template's name (file and YAML path) and the line
// and column of the action in the template's text.
type MissingValueError struct {
	// Where is "NAME:LINE:COL": the template's name and the action's
	// place in the template's text.
	Where string
	// File is "FILE:LINE" of the template in its config file, when known.
	File string
	// Action is the action's pipeline as written, ".releaseVersion".
	Action string
}

func (e *MissingValueError) Error() string {
	where := ""
	if e.Where != "" {
		where = "template: " + e.Where + ": "
	}
	if e.File != "" {
		where = e.File + ": " + where
	}
	return fmt.Sprintf("%s{{ %s }} %v: give it a value, or say what to do without one (default, if, with)", where, e.Action, ErrMissingValue)
}

// Is makes errors.Is(err, ErrMissingValue) true.
func (e *MissingValueError) Is(target error) bool { return target == ErrMissingValue }

var tmplValueFuncs = template.FuncMap{tmplValueFunc: tmplValue}

// tmplValue returns v, or an error naming the action when v is nil or
// holds a nil (see missing_inside.go).
func tmplValue(action string, v any) (any, error) {
	if holdsNil(v) {
		return nil, &MissingValueError{Action: action}
	}
	return v, nil
}

// missingValueError rewrites text/template's error around a
// MissingValueError ("template: NAME:1:5: executing ... at <...>: error
// calling ...") into the MissingValueError with its place filled in; any
// other error is returned as it is.
func (t *Template) missingValueError(err error) error {
	var mv *MissingValueError
	if !errors.As(err, &mv) {
		return err
	}
	msg := err.Error()
	where := ""
	if i := strings.Index(msg, ": executing "); i >= 0 {
		where = strings.TrimPrefix(msg[:i], "template: ")
	}
	action := mv.Action
	if action == "" { // a printing function's argument (argsHoldNil)
		action = actionOf(msg)
	}
	file := t.where
	if t.origin != nil {
		file = "" // the SpotError around it names the file's line and column
	}
	return &MissingValueError{Where: where, File: file, Action: action}
}

// requireValues rewrites every printing action of every template in t's
// set (see tmplValueFunc). It runs once, at parse, before any clone.
func requireValues(t *template.Template) {
	t.Funcs(tmplValueFuncs)
	for _, tt := range t.Templates() {
		if tt.Tree != nil {
			requireValuesList(tt.Tree, tt.Tree.Root)
		}
	}
}

func requireValuesList(tree *parse.Tree, l *parse.ListNode) {
	if l == nil {
		return
	}
	for _, n := range l.Nodes {
		switch x := n.(type) {
		case *parse.ActionNode:
			if prints(x) {
				requireValueAction(tree, x)
			}
		case *parse.IfNode:
			requireValuesBranch(tree, &x.BranchNode)
		case *parse.WithNode:
			requireValuesBranch(tree, &x.BranchNode)
		case *parse.RangeNode:
			requireValuesBranch(tree, &x.BranchNode)
		}
	}
}

func requireValuesBranch(tree *parse.Tree, b *parse.BranchNode) {
	requireValuesList(tree, b.List)
	requireValuesList(tree, b.ElseList)
}

// requireValueAction appends tmplValueFunc, with the action's text as its
// first argument, to the action's pipeline.
func requireValueAction(tree *parse.Tree, a *parse.ActionNode) {
	text := a.Pipe.String()
	id := parse.NewIdentifier(tmplValueFunc).SetTree(tree).SetPos(a.Pos)
	arg := &parse.StringNode{NodeType: parse.NodeString, Pos: a.Pos, Quoted: fmt.Sprintf("%q", text), Text: text}
	a.Pipe.Cmds = append(a.Pipe.Cmds, &parse.CommandNode{NodeType: parse.NodeCommand, Pos: a.Pos, Args: []parse.Node{id, arg}})
}
