package secret

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"
)

// URL is a URL or address that may carry user info ("amqp://user:pw@host/",
// "https://token@host"). It prints redacted (RedactURL; MaskURL for a value
// that is not a clean URL, which a load refuses anyway). Validate it with
// CheckURL or CheckAddress.
type URL struct{ p *string }

// NewURL holds raw as a secret URL.
func NewURL(raw string) URL { return URL{p: &raw} }

// Reveal returns the URL itself, credentials included. Call it only where
// the URL is dialled, never to print it.
func (u URL) Reveal() string {
	if u.p == nil {
		return ""
	}
	return *u.p
}

// IsZero reports an empty URL.
func (u URL) IsZero() bool { return u.Reveal() == "" }

// String is the URL redacted.
func (u URL) String() string {
	raw := u.Reveal()
	if _, clean := parseClean(raw); clean {
		return RedactURL(raw)
	}
	return MaskURL(raw)
}

// GoString prints the type and the redacted URL (%#v).
func (u URL) GoString() string { return "secret.URL(" + strconv.Quote(u.String()) + ")" }

// Format writes the redacted form for every verb.
func (u URL) Format(f fmt.State, verb rune) { format(f, verb, u.String(), u.GoString()) }

// LogValue is the redacted form for slog.
func (u URL) LogValue() slog.Value { return slog.StringValue(u.String()) }

// MarshalJSON writes the redacted form.
func (u URL) MarshalJSON() ([]byte, error) { return json.Marshal(u.String()) }

// MarshalYAML writes the redacted form.
func (u URL) MarshalYAML() (any, error) { return u.String(), nil }

// MarshalText writes the redacted form.
func (u URL) MarshalText() ([]byte, error) { return []byte(u.String()), nil }

// UnmarshalText holds text as the URL (env and flag values); CheckURL or
// CheckAddress validate it.
func (u *URL) UnmarshalText(text []byte) error {
	*u = NewURL(string(text))
	return nil
}

// RevealValue is the value as a config param reads it (config.Values).
func (u URL) RevealValue() any { return u.Reveal() }

// RevealAll returns the URLs of list themselves.
func RevealAll(list []URL) []string {
	if list == nil {
		return nil
	}
	out := make([]string, len(list))
	for i, u := range list {
		out[i] = u.Reveal()
	}
	return out
}
