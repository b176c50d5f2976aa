package secret

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"
)

// Redacted is what a secret is printed as.
const Redacted = "REDACTED"

// String is a secret text: a token, a password, a header value. Its zero
// value is empty. Every printed form is Redacted (empty stays empty, so a
// dump shows what is unset).
type String struct{ p *string }

// NewString holds s as a secret.
func NewString(s string) String { return String{p: &s} }

// Reveal returns the secret itself. Call it only where the value is used,
// never to print it.
func (s String) Reveal() string {
	if s.p == nil {
		return ""
	}
	return *s.p
}

// IsZero reports an empty secret.
func (s String) IsZero() bool { return s.Reveal() == "" }

// String is Redacted, or "" for an empty secret.
func (s String) String() string { return redactedOrEmpty(s.Reveal()) }

// GoString prints the type and Redacted (%#v).
func (s String) GoString() string { return "secret.String(" + strconv.Quote(s.String()) + ")" }

// Format writes the redacted form for every verb.
func (s String) Format(f fmt.State, verb rune) { format(f, verb, s.String(), s.GoString()) }

// LogValue is the redacted form for slog.
func (s String) LogValue() slog.Value { return slog.StringValue(s.String()) }

// MarshalJSON writes the redacted form.
func (s String) MarshalJSON() ([]byte, error) { return json.Marshal(s.String()) }

// MarshalYAML writes the redacted form.
func (s String) MarshalYAML() (any, error) { return s.String(), nil }

// MarshalText writes the redacted form.
func (s String) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText holds text as the secret (env and flag values).
func (s *String) UnmarshalText(text []byte) error {
	*s = NewString(string(text))
	return nil
}

// RevealValue is the value as a config param reads it (config.Values).
func (s String) RevealValue() any { return s.Reveal() }

func redactedOrEmpty(v string) string {
	if v == "" {
		return ""
	}
	return Redacted
}

// format writes text for every verb but %#v (goText) and %q (quoted).
func format(f fmt.State, verb rune, text, goText string) {
	switch {
	case verb == 'v' && f.Flag('#'):
		_, _ = fmt.Fprint(f, goText)
	case verb == 'q':
		_, _ = fmt.Fprint(f, strconv.Quote(text))
	default:
		_, _ = fmt.Fprint(f, text)
	}
}
