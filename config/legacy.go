package config

import (
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

// Shapes this adapter cannot run are refused with one error that says what
// to do, instead of the many "unknown field" and "is required" lines their
// keys would give one by one:
//
//   - a single-file config from before HyperFleet adapter v0.1.0: the
//     adapter config also holds hyperfleetApi, kubernetes, params,
//     preconditions, resources and post;
//   - a task config whose resources use the Kubernetes transport
//     (transport.client: kubernetes, or no transport around a plain
//     Kubernetes manifest, the older default).

const legacyPrefix = "this is a single-file adapter config from before HyperFleet adapter v0.1.0"

// isLegacyError reports an adapter config load that failed only because the
// file is a single-file config.
func isLegacyError(err error) bool {
	es, ok := err.(Errors)
	return ok && len(es) == 1 && (strings.HasPrefix(es[0].Msg, legacyPrefix) || strings.HasPrefix(es[0].Msg, "this is a task config"))
}

const legacyHelp = "split it in two as HyperFleet adapter v0.1.0 did: the adapter config keeps adapter and " +
	"clients (clients.hyperfleet_api, clients.broker, clients.maestro), and params, preconditions, resources and " +
	"post move to a task config passed with --task-config (README: Moving from hyperfleet-adapter)"

// legacyTaskKeys are the task-config keys a single-file config holds.
var legacyTaskKeys = []string{"params", "preconditions", "resources", "post"}

// legacyClientKeys are the client keys a single-file config holds at the
// top level (they live under clients since v0.1.0).
var legacyClientKeys = []string{"hyperfleetApi", "hyperfleet_api", "kubernetes"}

// legacyAdapterConfig reports an adapter config in the single-file shape.
func legacyAdapterConfig(l *errorList, n *yaml.Node) bool {
	keys := legacyKeys(n, append(legacyClientKeys, legacyTaskKeys...))
	if len(keys) == 0 {
		return false
	}
	if len(legacyKeys(n, append([]string{"adapter", "clients"}, legacyClientKeys...))) == 0 {
		// Only task keys: a task config (HyperFleet's v0.1 template is
		// named adapter-config-template.yaml) passed as the adapter config.
		l.addAt("", keys[0].line, "this is a task config (%s), not an adapter config: pass it with --task-config (-t), "+
			"and an adapter config (adapter, clients) with --config (-c)", legacyNames(keys))
		return true
	}
	l.addAt("", keys[0].line, legacyPrefix+" (%s at the top level): %s",
		legacyNames(keys), legacyHelp)
	return true
}

// legacyTaskConfig reports a task config in the single-file shape (the
// same file passed as adapter and task config: stop, nothing else is worth
// checking) or resources using the Kubernetes transport: one error for all
// of them, and their indices, which are then not compiled, so the rest of
// the file (params, preconditions, Maestro resources, post) is still
// checked.
func legacyTaskConfig(l *errorList, n *yaml.Node) (stop bool, kubernetes []int) {
	if keys := legacyKeys(n, append([]string{"adapter"}, legacyClientKeys...)); len(keys) > 0 {
		l.addAt("", keys[0].line, legacyPrefix+" (%s beside the task keys): %s",
			legacyNames(keys), legacyHelp)
		return true, nil
	}
	kube := kubernetesResources(n)
	if len(kube) == 0 {
		return false, nil
	}
	l.addAt("", kube[0].line, "%s use%s the Kubernetes transport: bundle-adapter delivers ManifestWork bundles through Maestro only. "+
		"Wrap the manifests in a ManifestWork (its spec.workload.manifests) and set transport: {client: maestro, maestro: {target_cluster: ...}} "+
		"on each resource, as HyperFleet adapter's Maestro examples do, or keep running HyperFleet's adapter for this task",
		legacyNames(kube), map[bool]string{true: "s", false: ""}[len(kube) == 1])
	for _, k := range kube {
		kubernetes = append(kubernetes, k.index)
	}
	return false, kubernetes
}

type legacyKey struct {
	path  string
	line  int
	index int // of a resource
}

func legacyKeys(n *yaml.Node, names []string) []legacyKey {
	n = resolve(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	var out []legacyKey
	for i := 0; i+1 < len(n.Content); i += 2 {
		for _, name := range names {
			if n.Content[i].Value == name {
				out = append(out, legacyKey{path: name, line: n.Content[i].Line})
			}
		}
	}
	return out
}

func legacyNames(keys []legacyKey) string {
	names := make([]string, len(keys))
	for i, k := range keys {
		names[i] = k.path
	}
	return strings.Join(names, ", ")
}

// kubernetesResources lists the resources that use the Kubernetes
// transport: transport.client kubernetes, or no transport and a manifest
// whose literal kind is not ManifestWork.
func kubernetesResources(n *yaml.Node) []legacyKey {
	n = resolve(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	resources := mappingValue(n, "resources")
	if resources == nil || resources.Kind != yaml.SequenceNode {
		return nil
	}
	var out []legacyKey
	for i, r := range resources.Content {
		r = resolve(r)
		if r == nil || r.Kind != yaml.MappingNode {
			continue
		}
		path := fmt.Sprintf("resources[%d]", i)
		transport := mappingValue(r, "transport")
		if transport != nil {
			if c := mappingValue(transport, "client"); c != nil && c.Kind == yaml.ScalarNode && c.Value == "kubernetes" {
				out = append(out, legacyKey{path: path, line: c.Line, index: i})
			}
			continue
		}
		kind := mappingValue(mappingValue(r, "manifest"), "kind")
		if kind != nil && kind.Kind == yaml.ScalarNode && kind.Value != "" && kind.Value != "ManifestWork" && !strings.Contains(kind.Value, "{{") {
			out = append(out, legacyKey{path: path, line: r.Line, index: i})
		}
	}
	return out
}

// mappingValue is the value of key in a mapping node, nil if absent.
func mappingValue(n *yaml.Node, key string) *yaml.Node {
	n = resolve(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key || snakeCase(n.Content[i].Value) == key {
			return resolve(n.Content[i+1])
		}
	}
	return nil
}
