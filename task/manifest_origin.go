package task

import (
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/bundle-adapter/bundle-adapter/internal/configfile"
	"github.com/bundle-adapter/bundle-adapter/tmpl"
)

// manifestOrigins maps the template name (file:YAML path, as
// manifestCompiler names them) of every string scalar of a ref file that
// holds "{{" to where its text stands in the file, so that template errors
// name the file's line and column (issue 46, "errors at the spot"). A file
// that yaml cannot parse into nodes gets none: errors then name the YAML
// path only, as before.
func manifestOrigins(file string, data []byte) map[string]*tmpl.Origin {
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 {
		return nil
	}
	lines := strings.Split(string(data), "\n")
	out := map[string]*tmpl.Origin{}
	c := manifestCompiler{file: file}
	var walk func(n *yaml.Node, path string)
	walk = func(n *yaml.Node, path string) {
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				walk(n.Content[i+1], manifestKeyPath(path, n.Content[i].Value))
			}
		case yaml.SequenceNode:
			for i, item := range n.Content {
				walk(item, manifestIndexPath(path, i))
			}
		case yaml.ScalarNode:
			if strings.Contains(n.Value, "{{") {
				out[c.name(path)] = &tmpl.Origin{File: file, Segments: configfile.ScalarSegments(n, lines)}
			}
		}
	}
	walk(doc.Content[0], "")
	return out
}
