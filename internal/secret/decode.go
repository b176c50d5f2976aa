package secret

import (
	"github.com/bundle-adapter/bundle-adapter/internal/configfile"
	"gopkg.in/yaml.v3"
)

// DecodeNode reads a YAML scalar as the secret, as a plain string would be
// read; a mapping or list is an error that does not show the value.
func (s *String) DecodeNode(d *configfile.Decoder, n *yaml.Node, path string) {
	if v, ok := scalar(d, n, path); ok {
		*s = NewString(v)
	}
}

// DecodeNode reads a YAML scalar as the URL, as a plain string would be
// read; CheckURL or CheckAddress validate it.
func (u *URL) DecodeNode(d *configfile.Decoder, n *yaml.Node, path string) {
	if v, ok := scalar(d, n, path); ok {
		*u = NewURL(v)
	}
}

func scalar(d *configfile.Decoder, n *yaml.Node, path string) (string, bool) {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return "", false
	}
	if n.Kind != yaml.ScalarNode {
		d.Errs.AddAt(path, n.Line, "must be a single value, not %s", configfile.Describe(n))
		return "", false
	}
	return n.Value, true
}
