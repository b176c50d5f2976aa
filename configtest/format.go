package configtest

import (
	"regexp"

	"gopkg.in/yaml.v3"

	"github.com/bundle-adapter/bundle-adapter/internal/configfile"
)

// File is one test file.
type File struct {
	// AdapterConfig and TaskConfig are relative to the test file's folder.
	AdapterConfig string `yaml:"adapter_config"`
	TaskConfig    string `yaml:"task_config"`
	// StatusPayload names the post payload that conditions, data and
	// payload expectations read; default: the task config's only payload.
	StatusPayload string `yaml:"status_payload"`
	// Defaults are the inputs of every case's first step.
	Defaults Inputs `yaml:"defaults"`
	Cases    []Case `yaml:"cases"`
}

// Inputs are what a step inherits from the step before it (the first step
// from File.Defaults) unless it sets them.
type Inputs struct {
	Event        *Doc              `yaml:"event"`
	APIResponses *Doc              `yaml:"api_responses"`
	Env          map[string]string `yaml:"env"`
	Now          string            `yaml:"now"`
}

// Step is one event and what it must produce.
type Step struct {
	Name   string `yaml:"name"`
	Inputs `yaml:",inline"`
	// MaestroState, KubeState and Discovery replace what exists before the
	// event (the dry-run formats of --maestro-state, --kube-state and
	// --discovery).
	MaestroState *Doc `yaml:"maestro_state"`
	KubeState    *Doc `yaml:"kube_state"`
	Discovery    *Doc `yaml:"discovery"`
	// ConfirmDeletions: before the event, the simulated agent confirms
	// every pending deletion (Maestro answers 404 for them) and the API
	// server drops the finalizers of every deleting object.
	ConfirmDeletions bool    `yaml:"confirm_deletions"`
	Expect           *Expect `yaml:"expect"`
	line             int
	path             string // YAML path in the test file
}

// Case is one event (the step's fields written inline, Name naming the
// case) or a chain of Steps.
type Case struct {
	Step  `yaml:",inline"`
	Steps []Step `yaml:"steps"`
}

// Expect is what a step must produce. Only what is written is checked.
type Expect struct {
	ExecutionStatus *Value                      `yaml:"execution_status"`
	Skipped         *Value                      `yaml:"skipped"`
	Resources       map[string]*ResourceExpect  `yaml:"resources"`
	Conditions      map[string]*ConditionExpect `yaml:"conditions"`
	Data            map[string]*Value           `yaml:"data"`
	Payload         map[string]*Value           `yaml:"payload"`
	Objects         map[string]*Value           `yaml:"objects"`
}

// ResourceExpect is one resource's outcome.
type ResourceExpect struct {
	Operation *Value `yaml:"operation"`
	State     *Value `yaml:"state"`
	Reason    *Value `yaml:"reason"`
}

// ConditionExpect is one status condition, found by its type.
type ConditionExpect struct {
	Status        *Value  `yaml:"status"`
	Reason        *Value  `yaml:"reason"`
	Message       *Value  `yaml:"message"`
	MessageRegexp *Regexp `yaml:"message_regexp"`
}

// Value is an expected value as written: its YAML node (kept for the
// line, and for --update to rewrite) and the value it decodes to.
type Value struct {
	Node *yaml.Node
	V    any
}

// DecodeNode keeps the node and decodes it as free-form YAML.
func (v *Value) DecodeNode(d *configfile.Decoder, n *yaml.Node, path string) {
	v.Node = n
	var out any
	if err := n.Decode(&out); err != nil {
		d.Errs.AddAt(path, n.Line, "%v", err)
		return
	}
	norm, err := normalize(out)
	if err != nil {
		d.Errs.AddAt(path, n.Line, "%v", err)
		return
	}
	v.V = norm
}

// Regexp is a regular expression (Go RE2 syntax), compiled at load.
type Regexp struct {
	Value
	Re *regexp.Regexp
}

// DecodeNode compiles the expression; a bad one is an error at its line.
func (r *Regexp) DecodeNode(d *configfile.Decoder, n *yaml.Node, path string) {
	r.Node = n
	if n.Kind != yaml.ScalarNode {
		d.Errs.AddAt(path, n.Line, "must be a regular expression (a string), not %s", configfile.Describe(n))
		return
	}
	re, err := regexp.Compile(n.Value)
	if err != nil {
		d.Errs.AddAt(path, n.Line, "not a regular expression: %v", err)
		return
	}
	r.Re, r.V = re, n.Value
}

// Doc is an input document: a mapping written inline, or a string naming
// a JSON or YAML file relative to the test file's folder. JSON is what
// the pipeline's loaders read.
type Doc struct {
	File string // "" when inline
	JSON []byte
	Line int
	Path string // YAML path in the test file
}

// DecodeNode takes a file name or converts the inline document to JSON.
func (doc *Doc) DecodeNode(d *configfile.Decoder, n *yaml.Node, path string) {
	doc.Line, doc.Path = n.Line, path
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Tag != "!!str" || n.Value == "" {
			d.Errs.AddAt(path, n.Line, "must be a mapping written inline or the name of a file, not %s", configfile.Describe(n))
			return
		}
		doc.File = n.Value
	case yaml.MappingNode:
		var out any
		if err := n.Decode(&out); err != nil {
			d.Errs.AddAt(path, n.Line, "%v", err)
			return
		}
		data, err := toJSON(out)
		if err != nil {
			d.Errs.AddAt(path, n.Line, "%v", err)
			return
		}
		doc.JSON = data
	default:
		d.Errs.AddAt(path, n.Line, "must be a mapping written inline or the name of a file, not %s", configfile.Describe(n))
	}
}
