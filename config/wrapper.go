package config

import (
	"github.com/bundle-adapter/bundle-adapter/internal/configfile"
	"github.com/bundle-adapter/bundle-adapter/task"
	"gopkg.in/yaml.v3"
)

// wrapperKeys are the keys of the Kubernetes-style envelope HyperFleet
// configs may use: apiVersion, kind, metadata and spec.
var wrapperKeys = map[string]bool{"apiVersion": true, "kind": true, "metadata": true, "spec": true}

// unwrap returns the body of a config document: the spec of a
// Kubernetes-style envelope, or the document itself. The envelope's metadata
// is decoded into meta.
func unwrap(d *configfile.Decoder, root *yaml.Node, meta *task.TaskMetadata) *yaml.Node {
	root = configfile.Resolve(root)
	if root == nil || root.Kind != yaml.MappingNode || !isEnvelope(root) {
		return root
	}
	var spec *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		d.Errs.Lines[k.Value] = k.Line
		switch k.Value {
		case "spec":
			spec = v
		case "metadata":
			d.Decode(v, configfile.ReflectValue(meta), "metadata")
		case "apiVersion", "kind":
		default:
			d.Errs.AddAt(k.Value, k.Line, "unknown field %q beside spec (a wrapped config holds apiVersion, kind, metadata and spec only)", k.Value)
		}
	}
	if spec == nil {
		d.Errs.AddAt("spec", root.Line, "is required when apiVersion/kind wrap the config")
		return &yaml.Node{Kind: yaml.MappingNode}
	}
	return spec
}

// enveloped reports whether a config document is wrapped in the
// Kubernetes-style envelope (see unwrap).
func enveloped(root *yaml.Node) bool {
	root = configfile.Resolve(root)
	return root != nil && root.Kind == yaml.MappingNode && isEnvelope(root)
}

func isEnvelope(n *yaml.Node) bool {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i].Value; k == "spec" || k == "apiVersion" {
			return true
		}
	}
	return false
}
