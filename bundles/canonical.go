package bundles

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
	"sync"
	"unicode/utf8"
)

// Canonical returns the canonical JSON encoding of v:
//
//   - object keys sorted by their UTF-8 bytes, no insignificant whitespace;
//   - strings escaped as encoding/json does, except that <, > and & are not
//     escaped; invalid UTF-8 becomes U+FFFD;
//   - numbers normalized so 1, 1.0, 1e0, int64(1) and json.Number("1.0")
//     encode identically: integral values below 1e21 as plain integers,
//     others in the shortest form that reads back exactly (the format of
//     encoding/json: exponent form below 1e-6 and from 1e21); NaN and
//     infinities are errors. A json.Number whose value is an integer that
//     fits int64 or uint64 prints exactly, however it is spelled; other
//     json.Numbers are rounded to float64 first.
//
// It accepts map[string]any, []any, string, bool, nil, every Go int, uint
// and float kind and json.Number, as well as maps with string keys, slices,
// pointers and json.Marshaler values (through their JSON); other types are
// errors.
func Canonical(v any) ([]byte, error) {
	e := canonGet(false)
	defer canonPut(e)
	if err := e.value(v); err != nil {
		return nil, err
	}
	return bytes.Clone(e.buf), nil
}

// canonEncoder appends canonical JSON to buf. keys is a stack of map keys
// shared by nested objects, so sorting allocates nothing once warm.
type canonEncoder struct {
	buf        []byte
	keys       []string
	escapeHTML bool // true only to measure the size encoding/json would produce
}

var canonPool = sync.Pool{New: func() any { return &canonEncoder{buf: make([]byte, 0, 8<<10)} }}

const canonMaxPooledBuf = 1 << 20

func canonGet(escapeHTML bool) *canonEncoder {
	e := canonPool.Get().(*canonEncoder)
	e.buf = e.buf[:0]
	e.escapeHTML = escapeHTML
	return e
}

func canonPut(e *canonEncoder) {
	if cap(e.buf) > canonMaxPooledBuf {
		return
	}
	clear(e.keys[:cap(e.keys)])
	e.keys = e.keys[:0]
	canonPool.Put(e)
}

func (e *canonEncoder) value(v any) error {
	switch x := v.(type) {
	case nil:
		e.buf = append(e.buf, "null"...)
	case string:
		e.string(x)
	case bool:
		e.buf = strconv.AppendBool(e.buf, x)
	case map[string]any:
		return e.object(x)
	case []any:
		e.buf = append(e.buf, '[')
		for i, item := range x {
			if i > 0 {
				e.buf = append(e.buf, ',')
			}
			if err := e.value(item); err != nil {
				return err
			}
		}
		e.buf = append(e.buf, ']')
	case float64:
		return e.float(x, 64)
	case float32:
		return e.float(float64(x), 32)
	case int:
		e.buf = strconv.AppendInt(e.buf, int64(x), 10)
	case int64:
		e.buf = strconv.AppendInt(e.buf, x, 10)
	case int32:
		e.buf = strconv.AppendInt(e.buf, int64(x), 10)
	case int16:
		e.buf = strconv.AppendInt(e.buf, int64(x), 10)
	case int8:
		e.buf = strconv.AppendInt(e.buf, int64(x), 10)
	case uint:
		e.buf = strconv.AppendUint(e.buf, uint64(x), 10)
	case uint64:
		e.buf = strconv.AppendUint(e.buf, x, 10)
	case uint32:
		e.buf = strconv.AppendUint(e.buf, uint64(x), 10)
	case uint16:
		e.buf = strconv.AppendUint(e.buf, uint64(x), 10)
	case uint8:
		e.buf = strconv.AppendUint(e.buf, uint64(x), 10)
	case json.Number:
		return e.number(x)
	case map[string]string:
		e.stringMap(x)
	case []string:
		e.buf = append(e.buf, '[')
		for i, s := range x {
			if i > 0 {
				e.buf = append(e.buf, ',')
			}
			e.string(s)
		}
		e.buf = append(e.buf, ']')
	default:
		return e.reflect(v)
	}
	return nil
}

func (e *canonEncoder) object(m map[string]any) error {
	start := len(e.keys)
	for k := range m {
		e.keys = append(e.keys, k)
	}
	end := len(e.keys)
	slices.Sort(e.keys[start:end])
	e.buf = append(e.buf, '{')
	for i := start; i < end; i++ {
		// e.keys may be reallocated by nested objects; index it afresh.
		k := e.keys[i]
		if i > start {
			e.buf = append(e.buf, ',')
		}
		e.string(k)
		e.buf = append(e.buf, ':')
		if err := e.value(m[k]); err != nil {
			e.keys = e.keys[:start]
			return err
		}
	}
	e.buf = append(e.buf, '}')
	e.keys = e.keys[:start]
	return nil
}

func (e *canonEncoder) stringMap(m map[string]string) {
	start := len(e.keys)
	for k := range m {
		e.keys = append(e.keys, k)
	}
	end := len(e.keys)
	slices.Sort(e.keys[start:end])
	e.buf = append(e.buf, '{')
	for i := start; i < end; i++ {
		if i > start {
			e.buf = append(e.buf, ',')
		}
		e.string(e.keys[i])
		e.buf = append(e.buf, ':')
		e.string(m[e.keys[i]])
	}
	e.buf = append(e.buf, '}')
	e.keys = e.keys[:start]
}

// float writes f in the format of encoding/json, which prints integral
// values below 1e21 without fraction or exponent.
func (e *canonEncoder) float(f float64, bits int) error {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return fmt.Errorf("unsupported number %v: JSON has no NaN or infinity", f)
	}
	if f == 0 { // also -0
		e.buf = append(e.buf, '0')
		return nil
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs < 1e-6 || abs >= 1e21 {
		format = 'e'
	}
	e.buf = strconv.AppendFloat(e.buf, f, format, -1, bits)
	if format == 'e' {
		// 1e-07 -> 1e-7
		n := len(e.buf)
		if n >= 4 && e.buf[n-4] == 'e' && e.buf[n-3] == '-' && e.buf[n-2] == '0' {
			e.buf[n-2] = e.buf[n-1]
			e.buf = e.buf[:n-1]
		}
	}
	return nil
}

// number normalizes a json.Number: integers that fit 64 bits print exactly,
// whatever their spelling (9007199254740993, 9007199254740993.0 and
// 9007199254740993000e-3 alike), everything else goes through float64 like
// any other JSON number.
func (e *canonEncoder) number(n json.Number) error {
	s := string(n)
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		e.buf = strconv.AppendInt(e.buf, i, 10)
		return nil
	}
	if u, err := strconv.ParseUint(s, 10, 64); err == nil {
		e.buf = strconv.AppendUint(e.buf, u, 10)
		return nil
	}
	if plain, ok := canonIntegerSpelling(s); ok {
		if i, err := strconv.ParseInt(plain, 10, 64); err == nil {
			e.buf = strconv.AppendInt(e.buf, i, 10)
			return nil
		}
		if u, err := strconv.ParseUint(plain, 10, 64); err == nil {
			e.buf = strconv.AppendUint(e.buf, u, 10)
			return nil
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return fmt.Errorf("invalid number %q", s)
	}
	return e.float(f, 64)
}

// canonIntegerSpelling returns the plain integer spelling ("-123") of a
// JSON number written with a fraction or an exponent ("-1.23e2",
// "-123.000") whose value is an integer of at most 20 digits; ok is false
// for any other value or for text that is not a JSON number.
func canonIntegerSpelling(s string) (plain string, ok bool) {
	sign := ""
	if rest, neg := strings.CutPrefix(s, "-"); neg {
		sign, s = "-", rest
	}
	mant, expText, hasExp := strings.Cut(s, "e")
	if !hasExp {
		mant, expText, hasExp = strings.Cut(s, "E")
	}
	var exp int64
	if hasExp {
		digits := strings.TrimLeft(expText, "+-")
		if !canonDigits(digits) || len(expText)-len(digits) > 1 {
			return "", false
		}
		var err error
		if exp, err = strconv.ParseInt(expText, 10, 64); err != nil || exp > 1<<40 || exp < -(1<<40) {
			return "", false
		}
	}
	intPart, frac, hasFrac := strings.Cut(mant, ".")
	if !canonDigits(intPart) || hasFrac && !canonDigits(frac) || len(intPart) > 1 && intPart[0] == '0' {
		return "", false
	}
	digits := strings.TrimLeft(intPart+frac, "0")
	exp -= int64(len(frac))
	trimmed := strings.TrimRight(digits, "0")
	exp += int64(len(digits) - len(trimmed))
	switch {
	case trimmed == "":
		return "0", true
	case exp < 0 || int64(len(trimmed))+exp > 20:
		return "", false
	}
	return sign + trimmed + strings.Repeat("0", int(exp)), true
}

// canonDigits reports whether s is one or more ASCII digits.
func canonDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

const canonHex = "0123456789abcdef"

// string writes s quoted, escaping like encoding/json (HTML characters only
// when e.escapeHTML).
func (e *canonEncoder) string(s string) {
	b := append(e.buf, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && (!e.escapeHTML || (c != '<' && c != '>' && c != '&')) {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', canonHex[c>>4], canonHex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', canonHex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	e.buf = append(b, '"')
}

var (
	canonMarshalerType  = reflect.TypeFor[json.Marshaler]()
	errCanonUnsupported = errors.New("unsupported type")
)

// reflect handles the types outside the fast path: json.Marshaler values
// through their JSON, named scalar types, maps with string keys, slices,
// arrays and pointers. Structs are refused rather than guessed at.
func (e *canonEncoder) reflect(v any) error {
	rv := reflect.ValueOf(v)
	if rv.Type().Implements(canonMarshalerType) {
		if rv.Kind() == reflect.Pointer && rv.IsNil() {
			e.buf = append(e.buf, "null"...)
			return nil
		}
		return e.marshaler(v)
	}
	switch rv.Kind() {
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			e.buf = append(e.buf, "null"...)
			return nil
		}
		return e.value(rv.Elem().Interface())
	case reflect.String:
		e.string(rv.String())
	case reflect.Bool:
		e.buf = strconv.AppendBool(e.buf, rv.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		e.buf = strconv.AppendInt(e.buf, rv.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		e.buf = strconv.AppendUint(e.buf, rv.Uint(), 10)
	case reflect.Float32:
		return e.float(rv.Float(), 32)
	case reflect.Float64:
		return e.float(rv.Float(), 64)
	case reflect.Map:
		if rv.Type().Key().Kind() != reflect.String {
			return fmt.Errorf("%w %T: map keys must be strings", errCanonUnsupported, v)
		}
		return e.reflectMap(rv)
	case reflect.Slice:
		if rv.IsNil() {
			e.buf = append(e.buf, "null"...)
			return nil
		}
		if rv.Type().Elem().Kind() == reflect.Uint8 {
			e.string(base64.StdEncoding.EncodeToString(rv.Bytes()))
			return nil
		}
		return e.reflectList(rv)
	case reflect.Array:
		return e.reflectList(rv)
	default:
		return fmt.Errorf("%w %T", errCanonUnsupported, v)
	}
	return nil
}

func (e *canonEncoder) reflectMap(rv reflect.Value) error {
	if rv.IsNil() {
		e.buf = append(e.buf, "null"...)
		return nil
	}
	m := make(map[string]any, rv.Len())
	iter := rv.MapRange()
	for iter.Next() {
		m[iter.Key().String()] = iter.Value().Interface()
	}
	return e.object(m)
}

func (e *canonEncoder) reflectList(rv reflect.Value) error {
	e.buf = append(e.buf, '[')
	for i := 0; i < rv.Len(); i++ {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		if err := e.value(rv.Index(i).Interface()); err != nil {
			return err
		}
	}
	e.buf = append(e.buf, ']')
	return nil
}

// marshaler canonicalizes a json.Marshaler through its JSON.
func (e *canonEncoder) marshaler(v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var decoded any
	if err := dec.Decode(&decoded); err != nil {
		return fmt.Errorf("%T: %w", v, err)
	}
	return e.value(decoded)
}
