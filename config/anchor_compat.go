package config

import (
	"fmt"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/bundle-adapter/bundle-adapter/internal/configfile"
)

// What `validate --for hyperfleet-adapter` checks: whether a task config
// loads, and reads the same, on hyperfleet-adapter, so that a team knows
// whether rolling back keeps its config (docs/migration.md, "Rollback").
//
// anchorTaskSchema is hyperfleet-adapter's task config as its loader
// reads it (internal/configloader/types.go at 3f746a5, 2026-08-18): the
// keys of every mapping; its loader refuses any other key ("field x not
// found in type ..."). free marks a value of any shape (a manifest, a
// payload's build, a label selector, a default).
type anchorSchema map[string]anchorSchema

var free = anchorSchema{"*": nil}

var (
	anchorAPICall = anchorSchema{"method": nil, "url": nil, "timeout": nil, "retry_backoff": nil, "body": nil,
		"headers": {"name": nil, "value": nil}, "retry_attempts": nil}
	anchorLog        = anchorSchema{"message": nil, "level": nil}
	anchorDiscovery  = anchorSchema{"by_selectors": {"label_selector": free}, "namespace": nil, "by_name": nil}
	anchorWhen       = anchorSchema{"expression": nil}
	anchorTaskSchema = anchorSchema{
		"params": {"name": nil, "source": {"api_call": anchorAPICall, "file": {"trim": nil, "path": nil}, "expression": nil},
			"type": nil, "description": nil, "required": nil, "default": free},
		"preconditions": {"name": nil, "api_call": anchorAPICall, "log": anchorLog, "expression": nil,
			"capture":    {"name": nil, "default": free, "field": nil, "expression": nil},
			"conditions": {"field": nil, "operator": nil, "value": free, "values": free}},
		"resources": {"name": nil, "transport": {"client": nil, "maestro": {"target_cluster": nil}},
			"manifest": free, "discovery": anchorDiscovery,
			"lifecycle":          {"delete": {"when": anchorWhen, "propagationPolicy": nil}, "create": {"when": anchorWhen}},
			"nested_discoveries": {"name": nil, "discovery": anchorDiscovery}, "recreate_on_change": nil},
		"post": {"payloads": {"name": nil, "build": free, "build_ref": nil, "when": anchorWhen},
			"post_actions": {"name": nil, "api_call": anchorAPICall, "log": anchorLog, "when": anchorWhen}},
	}
)

// ourTemplateFuncs are template functions hyperfleet-adapter does not have:
// its loader fails on a template calling one.
var ourTemplateFuncs = []string{"toJson", "b64enc", "b64dec", "toString", "join", "split"}

// AnchorIncompatible lists what in the task config at path
// hyperfleet-adapter would refuse or read differently: keys its loader
// does not know (lifecycle.recreate, propagation_policy for its
// propagationPolicy, the older camelCase spelling), template functions it
// does not have, CEL reads of bundles (null there). Each names the file,
// line and YAML path. The config must load here first (Load).
func AnchorIncompatible(path string) (configfile.Errors, error) {
	l := configfile.NewErrorList(path)
	root, err := configfile.ReadYAML(path, l)
	if err != nil {
		return nil, err
	}
	root = configfile.Resolve(root)
	if root != nil && root.Kind == yaml.MappingNode && isEnvelope(root) {
		l.AddAt("", root.Line, "the apiVersion/kind/spec envelope: today's hyperfleet-adapter reads the task config's keys at the top level")
		for i := 0; i+1 < len(root.Content); i += 2 {
			if root.Content[i].Value == "spec" {
				root = root.Content[i+1]
			}
		}
	}
	anchorWalk(l, root, anchorTaskSchema, "")
	return l.Errs, nil
}

var (
	templateAction = regexp.MustCompile(`\{\{(.*?)\}\}`)
	templateWord   = regexp.MustCompile(`(?:^|[\s(|])([A-Za-z_][A-Za-z0-9_]*)`)
	bundlesRead    = regexp.MustCompile(`(^|[^A-Za-z0-9_.?])bundles\b`)
)

func anchorWalk(l *configfile.ErrorList, n *yaml.Node, schema anchorSchema, path string) {
	n = configfile.Resolve(n)
	if n == nil {
		return
	}
	switch n.Kind {
	case yaml.SequenceNode:
		for i, c := range n.Content {
			anchorWalk(l, c, schema, fmt.Sprintf("%s[%d]", path, i))
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			p := configfile.JoinPath(path, k.Value)
			if _, isFree := schema["*"]; isFree {
				anchorScalars(l, v, p)
				continue
			}
			child, known := schema[k.Value]
			if !known {
				l.AddAt(p, k.Line, "hyperfleet-adapter's loader refuses this key (no field %q there)", k.Value)
				continue
			}
			if child == nil {
				anchorScalars(l, v, p)
				continue
			}
			anchorWalk(l, v, child, p)
		}
	case yaml.ScalarNode:
		anchorScalar(l, n, path)
	}
}

// anchorScalars checks every string under n.
func anchorScalars(l *configfile.ErrorList, n *yaml.Node, path string) {
	n = configfile.Resolve(n)
	if n == nil {
		return
	}
	switch n.Kind {
	case yaml.ScalarNode:
		anchorScalar(l, n, path)
	case yaml.SequenceNode:
		for i, c := range n.Content {
			anchorScalars(l, c, fmt.Sprintf("%s[%d]", path, i))
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			anchorScalars(l, n.Content[i+1], configfile.JoinPath(path, n.Content[i].Value))
		}
	}
}

// anchorScalar reports a template calling a function hyperfleet-adapter
// does not have, and a CEL expression reading bundles.
func anchorScalar(l *configfile.ErrorList, n *yaml.Node, path string) {
	for _, a := range templateAction.FindAllStringSubmatch(n.Value, -1) {
		for _, m := range templateWord.FindAllStringSubmatch(a[1], -1) {
			for _, f := range ourTemplateFuncs {
				if m[1] == f {
					l.AddAt(path, n.Line, "template function %s: not in hyperfleet-adapter (its loader refuses the template)", f)
				}
			}
		}
	}
	if strings.HasSuffix(path, "expression") && bundlesRead.MatchString(n.Value) {
		l.AddAt(path, n.Line, "reads bundles: hyperfleet-adapter has no bundles variable (the expression fails there, and a payload leaf becomes null)")
	}
}
