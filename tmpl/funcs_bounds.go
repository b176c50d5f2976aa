package tmpl

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"text/template"
	"time"
	"unicode/utf8"
)

// tmplExecFuncs is the function map of one execution clone: the documented
// set, each charging its result to s's budget, the builtins that build
// strings (print, printf, println, html, js, urlquery) replaced by versions
// that check their result size first, the injected now, and the hidden
// step function.
func tmplExecFuncs(s *tmplState) template.FuncMap {
	str1 := func(f func(string) (string, error)) func(string) (string, error) {
		return func(a string) (string, error) { return s.str(f(a)) }
	}
	anys := func(f func(...any) (string, error)) func(...any) (string, error) {
		return func(a ...any) (string, error) { return s.str(f(a...)) }
	}
	return template.FuncMap{
		"lower":    str1(tmplLower),
		"upper":    str1(tmplUpper),
		"title":    str1(tmplTitle),
		"b64enc":   str1(tmplB64Enc),
		"b64dec":   str1(tmplB64Dec),
		"replace":  func(v, o, n string) (string, error) { return s.str(tmplReplace(v, o, n)) },
		"quote":    anys(tmplQuote),
		"toJson":   func(v any) (string, error) { return s.str(tmplToJSON(v)) },
		"toString": func(v any) (string, error) { return s.str(tmplToStringBounded(v)) },
		"string":   func(v any) (string, error) { return s.str(tmplString(v)) },
		"join":     func(sep string, l any) (string, error) { return s.str(tmplJoin(sep, l)) },
		"date":     func(layout string, t any) (string, error) { return s.str(tmplDate(layout, t)) },
		"dateFormat": func(layout string, t any) (string, error) {
			return s.str(tmplDate(layout, t))
		},
		"split": func(sep, v string) ([]string, error) {
			l, err := tmplSplit(sep, v)
			if err == nil {
				err = s.spend(16 * len(l))
			}
			return l, err
		},
		"print":   anys(refuseNil(tmplPrint)),
		"println": anys(refuseNil(tmplPrintln)),
		"printf": func(f string, a ...any) (string, error) {
			return s.str(refuseNil(func(a ...any) (string, error) { return tmplPrintf(f, a...) })(a...))
		},
		"html":        anys(refuseNil(tmplEscaper("html", 6, template.HTMLEscaper))),
		"js":          anys(refuseNil(tmplEscaper("js", 6, template.JSEscaper))),
		"urlquery":    anys(refuseNil(tmplEscaper("urlquery", 3, template.URLQueryEscaper))),
		"now":         func() time.Time { return s.now },
		tmplStepFunc:  s.step,
		tmplRangeFunc: s.rangeOver,
	}
}

// refuseNil is f refusing an argument that is or holds a null
// (argsHoldNil): these functions would print it as Go's "<nil>".
func refuseNil(f func(...any) (string, error)) func(...any) (string, error) {
	return func(a ...any) (string, error) {
		if err := argsHoldNil(a); err != nil {
			return "", err
		}
		return f(a...)
	}
}

// tmplArgBound bounds the size of v printed by fmt's %v: a string is its
// length, anything else at most twice its JSON size plus a little.
func tmplArgBound(v any) int {
	if s, ok := v.(string); ok {
		return len(s)
	}
	return 2*jsonSizeBound(v, MaxFuncBytes) + 8
}

func tmplArgsBound(args []any) int {
	n := len(args) + 1 // separators, newline
	for _, a := range args {
		n += tmplArgBound(a)
	}
	return n
}

// tmplToStringBounded is toString, refused before fmt prints a value whose
// text could pass MaxFuncBytes.
func tmplToStringBounded(v any) (string, error) {
	if err := checkFuncSize("toString", tmplArgBound(v)); err != nil {
		return "", err
	}
	return tmplToString(v)
}

func tmplPrint(args ...any) (string, error) {
	if err := checkFuncSize("print", tmplArgsBound(args)); err != nil {
		return "", err
	}
	return fmt.Sprint(args...), nil
}

func tmplPrintln(args ...any) (string, error) {
	if err := checkFuncSize("println", tmplArgsBound(args)); err != nil {
		return "", err
	}
	return fmt.Sprintln(args...), nil
}

// tmplPrintf bounds the result by the format, the arguments and every
// width and precision the format asks for, before formatting.
func tmplPrintf(format string, args ...any) (string, error) {
	size := len(format) + tmplArgsBound(args) + printfPadding(format, args)
	if err := checkFuncSize("printf", size); err != nil {
		return "", err
	}
	return fmt.Sprintf(format, args...), nil
}

// printfPadding sums the widths and precisions of format's verbs; a "*"
// counts every integer argument, as any of them may be the width.
func printfPadding(format string, args []any) int {
	total := 0
	star := false
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		i++
		for i < len(format) && strings.IndexByte("+-# 0[]123456789.*", format[i]) >= 0 {
			j := i
			for j < len(format) && format[j] >= '0' && format[j] <= '9' {
				j++
			}
			if j > i {
				total = min(total+atoiCapped(format[i:j]), MaxFuncBytes+1)
				i = j
				continue
			}
			star = star || format[i] == '*'
			i++
		}
	}
	if star {
		for _, a := range args {
			if n, err := tmplInt(a); err == nil && isInteger(a) {
				total = min(total+max(n, -n), MaxFuncBytes+1)
			}
		}
	}
	return total
}

func isInteger(v any) bool {
	switch reflect.ValueOf(v).Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return true
	}
	return false
}

// atoiCapped parses a run of digits, saturating above MaxFuncBytes.
func atoiCapped(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
		if n > MaxFuncBytes {
			return MaxFuncBytes + 1
		}
	}
	return n
}

// tmplEscaper wraps one of text/template's escapers: growth is the most
// one input byte can become (html: "&#34;"; js: "\u003C"; urlquery: "%2F").
func tmplEscaper(name string, growth int, esc func(...any) string) func(...any) (string, error) {
	return func(args ...any) (string, error) {
		if err := checkFuncSize(name, growth*tmplArgsBound(args)); err != nil {
			return "", err
		}
		return esc(args...), nil
	}
}

// jsonSizeBound is an upper bound of the size of v encoded as JSON (without
// HTML escaping), for the values templates and CEL see: nil, bools,
// numbers, strings, maps, slices, time.Time. It stops walking once the
// bound passes limit and then returns limit+1, so its cost is bounded too.
func jsonSizeBound(v any, limit int) int {
	w := jsonBounder{limit: limit}
	w.add(reflect.ValueOf(v))
	return min(w.n, limit+1)
}

type jsonBounder struct{ n, limit int }

func (w *jsonBounder) add(v reflect.Value) {
	if w.n > w.limit {
		return
	}
	if !v.IsValid() {
		w.n += 4
		return
	}
	switch x := v.Interface().(type) {
	case string:
		w.n += JSONStringBound(x)
		return
	case json.Number:
		w.n += len(x)
		return
	case []byte:
		w.n += base64.StdEncoding.EncodedLen(len(x)) + 2
		return
	case time.Time:
		w.n += 40
		return
	}
	w.addKind(v)
}

func (w *jsonBounder) addKind(v reflect.Value) {
	switch v.Kind() {
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			w.n += 4
			return
		}
		w.add(v.Elem())
	case reflect.Map:
		w.n += 2
		iter := v.MapRange()
		for iter.Next() && w.n <= w.limit {
			w.n += jsonKeyBound(iter.Key()) + 2
			w.add(iter.Value())
		}
	case reflect.Slice, reflect.Array:
		w.n += 2
		for i := 0; i < v.Len() && w.n <= w.limit; i++ {
			w.n++
			w.add(v.Index(i))
		}
	case reflect.String:
		w.n += JSONStringBound(v.String())
	default:
		w.n += 32 // numbers, bools
	}
}

// jsonKeyBound bounds an encoded map key: strings as strings, other keys
// (numbers) as their printed form.
func jsonKeyBound(k reflect.Value) int {
	if k.Kind() == reflect.String {
		return JSONStringBound(k.String())
	}
	return JSONStringBound(fmt.Sprint(k.Interface()))
}

// jsonStringBound is the encoded size of s with its quotes: control
// characters, invalid bytes, U+2028 and U+2029 take 6 bytes, quote and
// backslash 2.
func JSONStringBound(s string) int {
	n := 2
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			switch {
			case b == '"' || b == '\\':
				n += 2
			case b < 0x20:
				n += 6
			default:
				n++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
			n += 6
		} else {
			n += size
		}
		i += size
	}
	return n
}
