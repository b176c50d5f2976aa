package secret

import (
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
)

// Headers are HTTP headers whose values are secrets (Authorization, API
// keys). Names print as they are, values redacted.
type Headers map[string]String

// Reveal returns the headers with their values, for the HTTP client.
func (h Headers) Reveal() map[string]string {
	if h == nil {
		return nil
	}
	out := make(map[string]string, len(h))
	for k, v := range h {
		out[k] = v.Reveal()
	}
	return out
}

// String is "map[Name:REDACTED ...]", names sorted.
func (h Headers) String() string {
	var b strings.Builder
	b.WriteString("map[")
	for i, k := range slices.Sorted(maps.Keys(h)) {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(k + ":" + h[k].String())
	}
	b.WriteString("]")
	return b.String()
}

// GoString prints the type and the redacted headers (%#v).
func (h Headers) GoString() string { return "secret.Headers(" + h.String() + ")" }

// Format writes the redacted form for every verb.
func (h Headers) Format(f fmt.State, verb rune) { format(f, verb, h.String(), h.GoString()) }

// LogValue is a group of the names, each value redacted.
func (h Headers) LogValue() slog.Value {
	attrs := make([]slog.Attr, 0, len(h))
	for _, k := range slices.Sorted(maps.Keys(h)) {
		attrs = append(attrs, slog.String(k, h[k].String()))
	}
	return slog.GroupValue(attrs...)
}

// UnmarshalText reads "Name=value,Name2=value" (env and flag values). An
// item without "=" is an error that shows neither its name nor its value:
// "Authorization: Bearer x" is all secret.
func (h *Headers) UnmarshalText(text []byte) error {
	m := Headers{}
	for i, item := range strings.Split(string(text), ",") {
		if item = strings.TrimSpace(item); item == "" {
			continue
		}
		k, val, ok := strings.Cut(item, "=")
		if !ok {
			return fmt.Errorf("must be Name=value pairs separated by commas: item %d has no \"=\" (its text is not shown, it may be a secret)", i+1)
		}
		m[strings.TrimSpace(k)] = NewString(strings.TrimSpace(val))
	}
	*h = m
	return nil
}

// RevealValue is the headers as a config param reads them (config.Values).
func (h Headers) RevealValue() any {
	out := make(map[string]any, len(h))
	for k, v := range h {
		out[k] = v.Reveal()
	}
	return out
}
