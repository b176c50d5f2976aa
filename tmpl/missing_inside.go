package tmpl

import (
	"reflect"
	"strings"
)

// A missing value never renders, not even inside another value.
//
// text/template prints a list or a map with fmt, so a null held inside one
// ({"a": null}, [null]) prints as Go's "<nil>" ("map[a:<nil>]", "[<nil>]"),
// and so does a null given to print, printf, println, html, js or urlquery
// ("<nil>", "%!s(<nil>)", "&lt;nil&gt;"): the same silent "<no value>"
// that tmplValue refuses for a value that is null itself. So a printed
// value holding a null anywhere, and a null argument of those functions,
// fail the render as a missing value (ErrMissingValue). Functions that say
// what to do with a null (default, toJson, toString, join) are unchanged.

// maxNilDepth bounds how deep holdsNil looks; a value nested deeper (the
// event decoder refuses far less) is treated as holding a null.
const maxNilDepth = 10000

// holdsNil reports whether v is nil or holds a nil (a nil element of a
// list, a nil value of a map, a nil pointer or interface) at any depth.
func holdsNil(v any) bool {
	if v == nil {
		return true
	}
	switch x := v.(type) {
	case string, bool, int, int64, float64:
		return false
	case map[string]any:
		for _, e := range x {
			if holdsNil(e) {
				return true
			}
		}
		return false
	case []any:
		for _, e := range x {
			if holdsNil(e) {
				return true
			}
		}
		return false
	}
	return holdsNilValue(reflect.ValueOf(v), 0)
}

func holdsNilValue(v reflect.Value, depth int) bool {
	if depth > maxNilDepth {
		return true
	}
	switch v.Kind() {
	case reflect.Invalid:
		return true
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			return true
		}
		return holdsNilValue(v.Elem(), depth+1)
	case reflect.Map:
		it := v.MapRange()
		for it.Next() {
			if holdsNilValue(it.Value(), depth+1) {
				return true
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if holdsNilValue(v.Index(i), depth+1) {
				return true
			}
		}
	}
	return false
}

// argsHoldNil is the error of a printing function (print, printf, ...)
// given a null, or a value holding one, as an argument: a
// MissingValueError whose action text.template's error names
// (missingValueError fills it in).
func argsHoldNil(args []any) error {
	for _, a := range args {
		if holdsNil(a) {
			return &MissingValueError{}
		}
	}
	return nil
}

// actionOf is the action text/template's error message names ("at <printf
// \"%v\" .v>: error calling printf"), "" when it names none.
func actionOf(msg string) string {
	i := strings.Index(msg, " at <")
	if i < 0 {
		return ""
	}
	rest := msg[i+len(" at <"):]
	j := strings.Index(rest, ">: ")
	if j < 0 {
		return ""
	}
	return rest[:j]
}
