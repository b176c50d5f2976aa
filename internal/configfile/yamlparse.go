package configfile

import (
	"bytes"
	"errors"
	"io"

	"gopkg.in/yaml.v3"
)

// parseYAML parses data, which must hold at most one YAML document, into a
// node tree whose expansion is bounded (see checkYAMLExpansion). It returns
// nil, nil when data holds no document at all (only comments or nothing).
// Aliases are not expanded: yaml.v3's parser keeps them as AliasNodes.
// Errors are *yamlError when they have a line, and never expand anything.
func ParseYAML(data []byte) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var root yaml.Node
	if err := dec.Decode(&root); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		return nil, err
	}
	var extra yaml.Node
	switch err := dec.Decode(&extra); {
	case err == nil:
		return nil, &YAMLError{Extra: true, Line: extra.Line, Msg: "a second YAML document (after ---): exactly one YAML document is allowed"}
	case !errors.Is(err, io.EOF):
		return nil, err
	}
	if err := checkYAMLExpansion(&root); err != nil {
		return nil, err
	}
	return &root, nil
}

// isEmptyDocument reports a document that holds nothing: no node, or a
// null such as "---", "null" or "~".
func isEmptyDocument(root *yaml.Node) bool {
	n := Resolve(root)
	return n == nil || isNull(n)
}

// DecodeYAML decodes data, which must hold at most one YAML document, into
// plain values (map[string]any, []any, scalars), after checking that its
// aliases and merge keys expand within MaxYAMLNodes and MaxYAMLDepth: a
// hostile document fails fast instead of expanding. No document decodes to
// nil. For YAML produced at run time, such as a rendered Whole manifest.
func DecodeYAML(data []byte) (any, error) {
	root, err := ParseYAML(data)
	if err != nil || root == nil {
		return nil, err
	}
	var v any
	if err := root.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}
