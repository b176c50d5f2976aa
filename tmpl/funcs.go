package tmpl

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"text/template"
	"time"

	"golang.org/x/text/cases"
	"golang.org/x/text/language"
)

// tmplFuncs is the shared, read-only function map every template is parsed
// with. "now" here is a guard that fails: templates using now execute on a
// clone whose "now" returns the injected time (see Template.Execute).
var tmplFuncs = template.FuncMap{
	"lower":      tmplLower,
	"upper":      tmplUpper,
	"title":      tmplTitle,
	"trim":       strings.TrimSpace,
	"trimPrefix": strings.TrimPrefix,
	"trimSuffix": strings.TrimSuffix,
	"replace":    tmplReplace,
	"contains":   strings.Contains,
	"hasPrefix":  strings.HasPrefix,
	"hasSuffix":  strings.HasSuffix,
	"quote":      tmplQuote,
	"default":    tmplDefault,
	"toJson":     tmplToJSON,
	"b64enc":     tmplB64Enc,
	"b64dec":     tmplB64Dec,
	"int":        tmplInt,
	"int64":      tmplInt64,
	"float":      tmplFloat,
	"float64":    tmplFloat,
	"toString":   tmplToString,
	"string":     tmplString,
	"join":       tmplJoin,
	"split":      tmplSplit,
	"now":        tmplNowGuard,
	"date":       tmplDate,
	"dateFormat": tmplDate,
}

// FuncNames returns the names of the functions templates can call
// besides text/template's builtins, sorted.
//
// Templates in config files (manifest strings, URLs, discovery names, payload
// strings) run with text/template's builtins (and, or, not, len, index, slice,
// print, printf, println, eq, ne, lt, le, gt, ge, html, js, urlquery, call)
// plus exactly the functions below. Every function is pure: none reads
// environment variables, files, the network or the real clock. Names and
// argument order are hyperfleet-adapter's (pkg/utils TemplateFuncs): the
// string functions take the string first, as Go's strings package does, so
// {{ trimPrefix .name "x-" }} and {{ replace .id "-" "_" }}. Piping a value
// into one of them ({{ .name | trimPrefix "x-" }}) would make it the last
// argument, the prefix: Parse refuses that, and a call whose leading
// arguments are literals and whose last is not ({{ contains "x" .s }}, the
// sprig order), naming the function and the order to write.
//
//	lower s               s in lower case
//	upper s               s in upper case
//	title s               English title case: each word's first letter upper, the rest lower
//	trim s                s without leading and trailing white space
//	trimPrefix s prefix   s without the leading prefix
//	trimSuffix s suffix   s without the trailing suffix
//	replace s old new     s with every old replaced by new
//	contains s substr     whether s contains substr
//	hasPrefix s prefix    whether s starts with prefix
//	hasSuffix s suffix    whether s ends with suffix
//	quote v...            each value as a double-quoted Go string, space separated
//	default d v           v, or d when v is nil or "" (0, false and empty lists are kept);
//	                      a missing param is an error before default runs (templates run
//	                      with missingkey=error): write (index . "name") to allow absence
//	toJson v              compact JSON of v (no HTML escaping)
//	b64enc s              standard base64 of s
//	b64dec s              decoded standard base64; invalid input is an error
//	int v                 v as an int: numbers truncated, strings parsed, true 1, nil 0; else an error
//	int64 v               int, as an int64
//	float v               v as a float64: strings parsed; otherwise an error
//	float64 v             the same as float
//	toString v            v as a string: nil is "", integral floats print without exponent
//	string v              v printed as fmt's %v (1e+06 for a float 1000000, <nil> for nil),
//	                      as hyperfleet-adapter prints it
//	join sep list         elements of list (any slice) as strings, joined with sep
//	split sep s           s split at every sep, as a list of strings (sprig's splitList)
//	now                   the event's clock, injected by the caller of Execute
//	date layout t         t (a time.Time) formatted with the Go layout, in t's own location
//	dateFormat layout t   the same as date
//
// Differences from hyperfleet-adapter: errors are returned instead of being
// swallowed into zero values (int "abc" fails the render instead of giving
// 0), now is the event's clock rather than the machine's, and there is no
// env, expandenv, readFile or any other function that reaches outside the
// template's data.
//
// Every function that builds a string or list (these and the builtins print,
// printf, println, html, js and urlquery) computes the size of its result,
// or a bound of it, before building it, and fails past MaxFuncBytes
// with an error naming itself and the limit: nested replace or toJson and
// printf widths cannot allocate past a few MiB. See MaxSteps for the
// whole execution budget.
func FuncNames() []string {
	names := make([]string, 0, len(tmplFuncs))
	for name := range tmplFuncs {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

func tmplNowGuard() (time.Time, error) {
	return time.Time{}, fmt.Errorf("internal: now called without an injected clock")
}

// tmplTitle is hyperfleet-adapter's title: English title casing (the
// first letter of every word upper-cased, the rest lower-cased). A Caser
// keeps state, so each call gets its own. Special casing can triple a
// rune's encoding (U+0390, 2 bytes, title-cases to 3 runes, 6 bytes), which
// bounds the result.
func tmplTitle(s string) (string, error) {
	if err := checkFuncSize("title", 3*len(s)); err != nil {
		return "", err
	}
	return cases.Title(language.English).String(s), nil
}

// tmplCaseBound bounds the size of s after a case change: a rune never
// grows by more than half its encoded size (U+0250, 2 bytes, upper-cases
// to U+2C6F, 3 bytes).
func tmplCaseBound(s string) int { return len(s) + len(s)/2 }

func tmplLower(s string) (string, error) {
	if err := checkFuncSize("lower", tmplCaseBound(s)); err != nil {
		return "", err
	}
	return strings.ToLower(s), nil
}

func tmplUpper(s string) (string, error) {
	if err := checkFuncSize("upper", tmplCaseBound(s)); err != nil {
		return "", err
	}
	return strings.ToUpper(s), nil
}

// tmplReplace is strings.ReplaceAll(s, old, new), refused before it is
// built when the result would exceed MaxFuncBytes.
func tmplReplace(s, old, new string) (string, error) {
	n := strings.Count(s, old)
	if n == 0 {
		return s, nil
	}
	if err := checkFuncSize("replace", len(s)+n*(len(new)-len(old))); err != nil {
		return "", err
	}
	return strings.ReplaceAll(s, old, new), nil
}

func tmplB64Enc(s string) (string, error) {
	if err := checkFuncSize("b64enc", base64.StdEncoding.EncodedLen(len(s))); err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString([]byte(s)), nil
}

// tmplSplit is strings.Split(s, sep) as sprig's splitList, refused when the
// list of n parts (16 bytes each) would exceed MaxFuncBytes.
func tmplSplit(sep, s string) ([]string, error) {
	n := strings.Count(s, sep) + 1
	if err := checkFuncSize("split", n*16); err != nil {
		return nil, err
	}
	return strings.Split(s, sep), nil
}

// tmplQuote quotes each value; a quoted byte takes at most 4 bytes (\xff),
// which bounds the result before it is built.
func tmplQuote(vs ...any) (string, error) {
	strs := make([]string, 0, len(vs))
	size := 0
	for _, v := range vs {
		s, err := tmplToString(v)
		if err != nil {
			return "", err
		}
		strs = append(strs, s)
		size += 4*len(s) + 3
	}
	if err := checkFuncSize("quote", size); err != nil {
		return "", err
	}
	parts := make([]string, len(strs))
	for i, s := range strs {
		parts[i] = strconv.Quote(s)
	}
	return strings.Join(parts, " "), nil
}

// tmplDefault is hyperfleet-adapter's default: given[0] unless it is nil
// or "", else d. Unlike sprig's, 0, false and empty lists and maps are
// values, kept as given.
func tmplDefault(d any, given ...any) any {
	if len(given) == 0 || given[0] == nil || given[0] == "" {
		return d
	}
	return given[0]
}

// tmplToJSON encodes v; the encoded size is bounded by walking v first
// (jsonSizeBound), so a value that would encode past MaxFuncBytes
// is refused before any encoding.
func tmplToJSON(v any) (string, error) {
	bound := jsonSizeBound(v, MaxFuncBytes)
	if err := checkFuncSize("toJson", bound); err != nil {
		return "", err
	}
	var buf bytes.Buffer
	buf.Grow(bound + 1)
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", fmt.Errorf("toJson: %w", err)
	}
	return strings.TrimSuffix(buf.String(), "\n"), nil
}

func tmplB64Dec(s string) (string, error) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return "", fmt.Errorf("b64dec: %w", err)
	}
	return string(b), nil
}

func tmplInt(v any) (int, error) {
	switch x := v.(type) {
	case string:
		s := strings.TrimSpace(x)
		i, err := strconv.ParseInt(s, 10, 64)
		if err == nil {
			return int(i), nil
		}
		if errors.Is(err, strconv.ErrRange) {
			return 0, fmt.Errorf("int: %.40s is out of range", s)
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return 0, fmt.Errorf("int: cannot convert %q to a number", x)
		}
		if f <= math.MinInt64 {
			// -2^63 is also where every decimal just below it rounds to;
			// the exact value was taken by ParseInt above.
			return 0, fmt.Errorf("int: %.40s is out of range", s)
		}
		return tmplFloatToInt(f)
	case json.Number:
		return tmplInt(string(x))
	case bool:
		if x {
			return 1, nil
		}
		return 0, nil
	case nil:
		return 0, nil
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return int(rv.Int()), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		u := rv.Uint()
		if u > math.MaxInt64 {
			return 0, fmt.Errorf("int: %d is out of range", u)
		}
		return int(u), nil
	case reflect.Float32, reflect.Float64:
		return tmplFloatToInt(rv.Float())
	}
	return 0, fmt.Errorf("int: cannot convert %T to a number", v)
}

func tmplInt64(v any) (int64, error) {
	i, err := tmplInt(v)
	if err != nil {
		return 0, fmt.Errorf("int64%s", strings.TrimPrefix(err.Error(), "int"))
	}
	return int64(i), nil
}

// tmplString is hyperfleet-adapter's string: fmt's %v of v, refused before
// fmt prints a value whose text could pass MaxFuncBytes.
func tmplString(v any) (string, error) {
	if err := checkFuncSize("string", tmplArgBound(v)); err != nil {
		return "", err
	}
	return fmt.Sprintf("%v", v), nil
}

func tmplFloatToInt(f float64) (int, error) {
	if math.IsNaN(f) || f >= math.MaxInt64 || f < math.MinInt64 {
		return 0, fmt.Errorf("int: %v is out of range", f)
	}
	return int(f), nil
}

func tmplFloat(v any) (float64, error) {
	switch x := v.(type) {
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		if err != nil {
			return 0, fmt.Errorf("float: cannot convert %q to a number", x)
		}
		return f, nil
	case json.Number:
		return tmplFloat(string(x))
	case bool:
		if x {
			return 1, nil
		}
		return 0, nil
	case nil:
		return 0, nil
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return float64(rv.Int()), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return float64(rv.Uint()), nil
	case reflect.Float32, reflect.Float64:
		return rv.Float(), nil
	}
	return 0, fmt.Errorf("float: cannot convert %T to a number", v)
}

// tmplToString converts a value to text. Strings pass through, nil is "",
// floats use the shortest form that reads back exactly and no exponent for
// integral values below 1e21 (so a generation decoded from JSON as 1e6
// prints 1000000), everything else prints as fmt's %v.
func tmplToString(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case nil:
		return "", nil
	case []byte:
		return string(x), nil
	case bool:
		return strconv.FormatBool(x), nil
	case json.Number:
		return string(x), nil
	case float64:
		return tmplFormatFloat(x, 64), nil
	case float32:
		return tmplFormatFloat(float64(x), 32), nil
	case fmt.Stringer:
		return x.String(), nil
	case error:
		return x.Error(), nil
	}
	return fmt.Sprint(v), nil
}

func tmplFormatFloat(f float64, bits int) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return strconv.FormatFloat(f, 'g', -1, bits)
	}
	if f == math.Trunc(f) && math.Abs(f) < 1e21 {
		if f == 0 {
			return "0"
		}
		return strconv.FormatFloat(f, 'f', -1, bits)
	}
	return strconv.FormatFloat(f, 'g', -1, bits)
}

func tmplJoin(sep string, list any) (string, error) {
	switch x := list.(type) {
	case []string:
		return tmplJoinStrings(sep, x)
	case nil:
		return "", nil
	}
	rv := reflect.ValueOf(list)
	if rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array {
		return "", fmt.Errorf("join: %T is not a list", list)
	}
	parts := make([]string, rv.Len())
	for i := range parts {
		s, err := tmplToString(rv.Index(i).Interface())
		if err != nil {
			return "", err
		}
		parts[i] = s
	}
	return tmplJoinStrings(sep, parts)
}

func tmplJoinStrings(sep string, parts []string) (string, error) {
	size := len(sep) * max(len(parts)-1, 0)
	for _, p := range parts {
		size += len(p)
	}
	if err := checkFuncSize("join", size); err != nil {
		return "", err
	}
	return strings.Join(parts, sep), nil
}

// tmplDate formats t; a layout element expands to at most twice its size
// ("Monday" to "Wednesday", "MST" to "+0530"), which bounds the result.
func tmplDate(layout string, t any) (string, error) {
	if err := checkFuncSize("date", 2*len(layout)+64); err != nil {
		return "", err
	}
	switch x := t.(type) {
	case time.Time:
		return x.Format(layout), nil
	case *time.Time:
		if x != nil {
			return x.Format(layout), nil
		}
	}
	return "", fmt.Errorf("date: %T is not a time (use now or a time value)", t)
}

// tmplUsesNow reports whether any template in the set calls the now function.
func tmplUsesNow(t *template.Template) bool {
	for _, tt := range t.Templates() {
		if tt.Tree != nil && tt.Tree.Root != nil && tmplNodeUsesNow(tt.Tree.Root) {
			return true
		}
	}
	return false
}
