package config

import "gopkg.in/yaml.v3"

// Text is a string field that is a Go template (for example a URL with
// "{{ .clusterId }}"), compiled at load.
type Text struct {
	Src  string
	Path string

	// T is the compiled template.
	T *Template
}

func (t *Text) decodeNode(d *decoder, n *yaml.Node, path string) {
	if n.Kind != yaml.ScalarNode {
		d.errs.addAt(path, n.Line, "must be a string, not %s", describe(n))
		return
	}
	t.Src, t.Path = n.Value, path
}

// MarshalYAML writes the template as written.
func (t Text) MarshalYAML() (any, error) { return t.Src, nil }

// IsZero reports whether the field was left empty.
func (t Text) IsZero() bool { return t.Src == "" }

// compileText compiles t in place; an empty text stays nil.
func compileText(l *errorList, t *Text) {
	if t.Src == "" {
		return
	}
	tmpl, err := ParseTemplate(t.Path, t.Src)
	if err != nil {
		l.add(t.Path, "%v", err)
		return
	}
	t.T = tmpl
}
