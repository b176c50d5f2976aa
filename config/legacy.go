package config

import (
	"strings"

	"github.com/bundle-adapter/bundle-adapter/internal/configfile"
	"gopkg.in/yaml.v3"
)

// A shape this adapter cannot run is refused with one error that says what
// to do, instead of the many "unknown field" and "is required" lines its
// keys would give one by one: a single-file config from before HyperFleet
// adapter v0.1.0, whose adapter config also holds hyperfleetApi,
// kubernetes, params, preconditions, resources and post.

const legacyPrefix = "this is a single-file adapter config from before HyperFleet adapter v0.1.0"

// isLegacyError reports an adapter config load that failed only because the
// file is a single-file config.
func isLegacyError(err error) bool {
	es, ok := err.(configfile.Errors)
	return ok && len(es) == 1 && (strings.HasPrefix(es[0].Msg, legacyPrefix) || strings.HasPrefix(es[0].Msg, "this is a task config"))
}

const legacyHelp = "split it in two as HyperFleet adapter v0.1.0 did: the adapter config keeps adapter and " +
	"clients (clients.hyperfleet_api, clients.broker, clients.maestro), and params, preconditions, resources and " +
	"post move to a task config passed with --task-config (docs/migration.md)"

// legacyTaskKeys are the task-config keys a single-file config holds.
var legacyTaskKeys = []string{"params", "preconditions", "resources", "post"}

// legacyClientKeys are the client keys a single-file config holds at the
// top level (they live under clients since v0.1.0).
var legacyClientKeys = []string{"hyperfleetApi", "hyperfleet_api", "kubernetes"}

// legacyAdapterConfig reports an adapter config in the single-file shape.
func legacyAdapterConfig(l *configfile.ErrorList, n *yaml.Node) bool {
	keys := legacyKeys(n, append(legacyClientKeys, legacyTaskKeys...))
	if len(keys) == 0 {
		return false
	}
	if len(legacyKeys(n, append([]string{"adapter", "clients"}, legacyClientKeys...))) == 0 {
		// Only task keys: a task config (HyperFleet's v0.1 template is
		// named adapter-config-template.yaml) passed as the adapter config.
		l.AddAt("", keys[0].line, "this is a task config (%s), not an adapter config: pass it with --task-config (-t), "+
			"and an adapter config (adapter, clients) with --config (-c)", legacyNames(keys))
		return true
	}
	l.AddAt("", keys[0].line, legacyPrefix+" (%s at the top level): %s",
		legacyNames(keys), legacyHelp)
	return true
}

// legacyTaskConfig reports a task config in the single-file shape (the
// same file passed as adapter and task config): stop, nothing else is worth
// checking.
func legacyTaskConfig(l *configfile.ErrorList, n *yaml.Node) (stop bool) {
	if keys := legacyKeys(n, append([]string{"adapter"}, legacyClientKeys...)); len(keys) > 0 {
		l.AddAt("", keys[0].line, legacyPrefix+" (%s beside the task keys): %s",
			legacyNames(keys), legacyHelp)
		return true
	}
	return false
}

type legacyKey struct {
	path  string
	line  int
	index int // of a resource
}

func legacyKeys(n *yaml.Node, names []string) []legacyKey {
	n = configfile.Resolve(n)
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
