package task

import (
	"strings"

	"github.com/bundle-adapter/bundle-adapter/internal/secret"
)

// What `config dump --task` prints (cmd/bundle-adapter): the task config as
// loaded, in this adapter's spelling, with every default the loader filled
// in. These encoders give back what a field was written as where its Go
// form cannot: a param's source path, a manifest's ref or inline tree.

// MarshalYAML writes a string source as its path (event.id, env.X,
// cluster.name); an api_call, expression or file source as its mapping.
func (s ParamSource) MarshalYAML() (any, error) {
	if s.Path != "" {
		return s.Path, nil
	}
	type plain ParamSource
	return plain(s), nil
}

// MarshalYAML writes {ref: file} for a ref, and the inline ManifestWork as
// written (its templates as their text).
func (m ManifestSpec) MarshalYAML() (any, error) {
	if m.Ref != "" {
		return map[string]string{"ref": m.Ref}, nil
	}
	return m.Inline, nil
}

// MarshalYAML writes a header's value as written, except a literal value
// (no template) of a header whose name says it carries a credential
// (Authorization, Cookie, or a name holding token, key, secret, password,
// auth or session): that is redacted, as a credential written into a task
// config by hand must not reach a dump. A template's text names params,
// never their values, so it is printed.
func (h Header) MarshalYAML() (any, error) {
	v := h.Value.Src
	if v != "" && !strings.Contains(v, "{{") && credentialHeader(h.Name) {
		v = secret.Redacted
	}
	return map[string]string{"name": h.Name, "value": v}, nil
}

func credentialHeader(name string) bool {
	n := strings.ToLower(name)
	for _, w := range []string{"authorization", "cookie", "token", "key", "secret", "password", "auth", "session"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}
