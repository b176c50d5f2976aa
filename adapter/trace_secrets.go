package adapter

import (
	"regexp"
	"strings"

	"github.com/bundle-adapter/bundle-adapter/config"
	"github.com/bundle-adapter/bundle-adapter/internal/secret"
	"github.com/bundle-adapter/bundle-adapter/task"
)

// redacted is what the trace shows for a secret's value.
const redacted = secret.Redacted

// secretWords are the parts of a name (lower case) that make a param read
// from the environment, a file, the adapter config or an expression count
// as a secret: an env var holding a token, a mounted password.
var secretWords = []string{"token", "password", "passwd", "secret", "key", "credential", "auth", "cert", "bearer"}

// looksSecret reports whether a name looks like a credential's.
func looksSecret(name string) bool {
	name = strings.ToLower(name)
	for _, w := range secretWords {
		if strings.Contains(name, w) {
			return true
		}
	}
	return false
}

// secretParams says, for each param of tc in config order, whether the
// trace redacts its value:
//
//   - config.<path> that reads a secret of the adapter config
//     (config.ReadsSecret: default_headers, the URLs that may hold user
//     info);
//   - env.<NAME>, file and config.<path> sources, and expressions, when the
//     param's name, the variable's name or the file's path looks like a
//     credential's (token, password, secret, key, credential, auth, cert,
//     bearer; looksSecret);
//   - a path into a secret param (token.value), and an expression that
//     names a secret param or reads env.<NAME> of such a name.
//
// Event fields and API answers are data, not secrets, and are shown.
func secretParams(tc *task.TaskConfig) []bool {
	out := make([]bool, len(tc.Params))
	secretNames := map[string]bool{}
	for i := range tc.Params {
		p := &tc.Params[i]
		s := p.Source
		switch {
		case s.Kind == task.PathConfig:
			out[i] = config.ReadsSecret(s.Field) || looksSecret(p.Name) || looksSecret(s.Field)
		case s.Kind == task.PathEnv:
			out[i] = looksSecret(p.Name) || looksSecret(s.Root)
		case s.File != nil:
			out[i] = looksSecret(p.Name) || looksSecret(s.File.Path)
		case s.Kind == task.PathParam:
			out[i] = secretNames[s.Root]
		case s.Expression != nil:
			out[i] = looksSecret(p.Name) || readsSecretName(s.Expression.Src, secretNames)
		}
		if out[i] {
			secretNames[p.Name] = true
		}
	}
	return out
}

var identifier = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)

// readsSecretName reports whether an expression names a secret param, or
// an env variable whose name looks like a credential's.
func readsSecretName(src string, secretNames map[string]bool) bool {
	for _, id := range identifier.FindAllString(src, -1) {
		if secretNames[id] {
			return true
		}
	}
	for _, m := range envRead.FindAllStringSubmatch(src, -1) {
		if looksSecret(m[1]) {
			return true
		}
	}
	return false
}

var envRead = regexp.MustCompile(`env\s*\.\s*([A-Za-z_][A-Za-z0-9_]*)`)

// minScrubbed is the shortest secret value Scrub replaces in other text:
// a shorter one would replace common letters everywhere. The param itself
// shows REDACTED whatever its length.
const minScrubbed = 4

// appendStrings appends the string leaves of v (a param's value) that
// Scrub replaces.
func appendStrings(out []string, v any) []string {
	switch x := v.(type) {
	case string:
		if len(x) >= minScrubbed {
			out = append(out, x)
		}
	case map[string]any:
		for _, e := range x {
			out = appendStrings(out, e)
		}
	case []any:
		for _, e := range x {
			out = appendStrings(out, e)
		}
	}
	return out
}

// Scrub replaces every secret param's value in s by REDACTED: for text the
// trace's reader prints next to it (the event's warnings).
func (t *EventTrace) Scrub(s string) string {
	if t == nil {
		return s
	}
	for _, v := range t.secrets {
		s = strings.ReplaceAll(s, v, redacted)
	}
	return s
}

// scrubAll hides the secrets' values in every value of the trace, copying
// what it changes (the trace shares the event's values).
func (t *EventTrace) scrubAll() {
	if len(t.secrets) == 0 {
		return
	}
	for i := range t.Params {
		if !t.Params[i].Redacted {
			t.Params[i].Value = t.scrubValue(t.Params[i].Value)
		}
		t.Params[i].Error = t.Scrub(t.Params[i].Error)
	}
	for i := range t.Preconditions {
		pc := &t.Preconditions[i]
		pc.Details, pc.Error = t.Scrub(pc.Details), t.Scrub(pc.Error)
		for j := range pc.Captures {
			pc.Captures[j].Value = t.scrubValue(pc.Captures[j].Value)
		}
	}
	for i := range t.Resources {
		res := &t.Resources[i]
		if m, ok := t.scrubValue(res.Rendered).(map[string]any); ok {
			res.Rendered = m
		}
		res.RenderError = t.Scrub(res.RenderError)
		res.Outcome.Error = t.Scrub(res.Outcome.Error)
		for j := range res.Rules {
			res.Rules[j].Error = t.Scrub(res.Rules[j].Error)
		}
	}
	if m, ok := t.scrubValue(t.Payloads).(map[string]any); ok {
		t.Payloads = m
	}
}

// scrubValue is v with the secrets' values replaced in every string,
// copied where anything is.
func (t *EventTrace) scrubValue(v any) any {
	switch x := v.(type) {
	case string:
		return t.Scrub(x)
	case map[string]any:
		if x == nil {
			return x
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[t.Scrub(k)] = t.scrubValue(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = t.scrubValue(e)
		}
		return out
	}
	return v
}
