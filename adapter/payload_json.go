package adapter

import (
	"encoding/json"
	"slices"
	"strconv"
)

// payloadJSON is json.Marshal(v) (its bytes; nil when it fails). A payload
// of the shape a status usually has (maps, lists, plain strings, whole
// numbers, booleans, nulls) is written directly, without encoding/json's
// reflection; any other value (a float, bytes, a string json.Marshal would
// escape) sends the whole payload to json.Marshal.
func payloadJSON(v any) []byte {
	if b, ok := appendPlainJSON(make([]byte, 0, 1024), v); ok {
		return b
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return b
}

// appendPlainJSON appends v as json.Marshal writes it; false: v holds a
// value it leaves to json.Marshal.
func appendPlainJSON(b []byte, v any) ([]byte, bool) {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), true
	case bool:
		return strconv.AppendBool(b, x), true
	case int64:
		return strconv.AppendInt(b, x, 10), true
	case int:
		return strconv.AppendInt(b, int64(x), 10), true
	case uint64:
		return strconv.AppendUint(b, x, 10), true
	case string:
		return appendPlainString(b, x)
	case []any:
		return appendPlainList(b, x)
	case map[string]any:
		return appendPlainMap(b, x)
	}
	return b, false
}

func appendPlainList(b []byte, l []any) ([]byte, bool) {
	if l == nil {
		return append(b, "null"...), true
	}
	b = append(b, '[')
	for i, e := range l {
		if i > 0 {
			b = append(b, ',')
		}
		var ok bool
		if b, ok = appendPlainJSON(b, e); !ok {
			return b, false
		}
	}
	return append(b, ']'), true
}

// appendPlainMap writes the members in key order, as json.Marshal does.
func appendPlainMap(b []byte, m map[string]any) ([]byte, bool) {
	if m == nil {
		return append(b, "null"...), true
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		var ok bool
		if b, ok = appendPlainString(b, k); !ok {
			return b, false
		}
		b = append(b, ':')
		if b, ok = appendPlainJSON(b, m[k]); !ok {
			return b, false
		}
	}
	return append(b, '}'), true
}

// appendPlainString quotes s when json.Marshal writes it as it is:
// printable ASCII other than the quote, the backslash and the characters
// it escapes for HTML (<, >, &).
func appendPlainString(b []byte, s string) ([]byte, bool) {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20 || c >= 0x7f, c == '"', c == '\\', c == '<', c == '>', c == '&':
			return b, false
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"'), true
}
