package tmpl

import (
	"github.com/bundle-adapter/bundle-adapter/internal/configfile"
	"gopkg.in/yaml.v3"
)

// Text is a string field that is a Go template (for example a URL with
// "{{ .clusterId }}"), compiled at load.
type Text struct {
	Src  string
	Path string

	// T is the compiled template.
	T *Template
}

func (t *Text) DecodeNode(d *configfile.Decoder, n *yaml.Node, path string) {
	if n.Kind != yaml.ScalarNode {
		d.Errs.AddAt(path, n.Line, "must be a string, not %s", configfile.Describe(n))
		return
	}
	t.Src, t.Path = n.Value, path
}

// MarshalYAML writes the template as written.
func (t Text) MarshalYAML() (any, error) { return t.Src, nil }

// IsZero reports whether the field was left empty.
func (t Text) IsZero() bool { return t.Src == "" }

// compileText compiles t in place; an empty text stays nil.
func CompileText(l *configfile.ErrorList, t *Text) {
	if t.Src == "" {
		return
	}
	tmpl, err := Parse(t.Path, t.Src)
	if err != nil {
		l.Add(t.Path, "%v", err)
		return
	}
	tmpl.SetWhere(l.Where(t.Path))
	t.T = tmpl
}
