package config

import (
	"gopkg.in/yaml.v3"
)

// wrapperKeys are the keys of the Kubernetes-style envelope HyperFleet
// configs may use: apiVersion, kind, metadata and spec.
var wrapperKeys = map[string]bool{"apiVersion": true, "kind": true, "metadata": true, "spec": true}

// unwrap returns the body of a config document: the spec of a
// Kubernetes-style envelope, or the document itself. The envelope's metadata
// is decoded into meta.
func unwrap(d *decoder, root *yaml.Node, meta *TaskMetadata) *yaml.Node {
	root = resolve(root)
	if root == nil || root.Kind != yaml.MappingNode || !isEnvelope(root) {
		return root
	}
	var spec *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		d.errs.lines[k.Value] = k.Line
		switch k.Value {
		case "spec":
			spec = v
		case "metadata":
			d.decode(v, reflectValue(meta), "metadata")
		case "apiVersion", "kind":
		default:
			d.errs.addAt(k.Value, k.Line, "unknown field %q beside spec (a wrapped config holds apiVersion, kind, metadata and spec only)", k.Value)
		}
	}
	if spec == nil {
		d.errs.addAt("spec", root.Line, "is required when apiVersion/kind wrap the config")
		return &yaml.Node{Kind: yaml.MappingNode}
	}
	return spec
}

func isEnvelope(n *yaml.Node) bool {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i].Value; k == "spec" || k == "apiVersion" {
			return true
		}
	}
	return false
}
