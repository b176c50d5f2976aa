package task

import (
	"path/filepath"

	"github.com/bundle-adapter/bundle-adapter/celenv"
	"github.com/bundle-adapter/bundle-adapter/internal/configfile"
	"github.com/bundle-adapter/bundle-adapter/tmpl"
	"gopkg.in/yaml.v3"
)

// TaskConfig is the per-provider pipeline: params, preconditions, resources
// (ManifestWork bundles) and post-processing. Files written for a HyperFleet
// adapter load unchanged, with or without the Kubernetes-style wrapper
// (apiVersion/kind/metadata/spec) and with camelCase or snake_case keys.
//
// A loaded TaskConfig is compiled: every CEL expression and template has been
// checked and is ready to run, so nothing is parsed per event.
type TaskConfig struct {
	TaskSpec `yaml:",inline"`

	// Metadata is the optional wrapper's metadata (empty without a wrapper).
	Metadata TaskMetadata `yaml:"-"`
	// File is the path the config was loaded from; refs resolve beside it.
	File string `yaml:"-"`
	// RefRoots map absolute manifest refs onto local folders (see refs).
	RefRoots []RefRoot `yaml:"-"`

	CheckWork WorkChecker `yaml:"-"` // see TaskOptions
	// CEL is the environment every expression of this config was compiled in.
	CEL *celenv.Env `yaml:"-"`
	// Warnings are the load warnings of the file (HyperFleet keys that mean
	// nothing here); never an error.
	Warnings configfile.Errors `yaml:"-"`
}

// TaskMetadata is the optional wrapper's metadata; .metadata.name is
// available to templates.
type TaskMetadata struct {
	Name   string            `yaml:"name"`
	Labels map[string]string `yaml:"labels"`
}

// TaskSpec is the pipeline itself.
type TaskSpec struct {
	Params        []Param        `yaml:"params"`
	Preconditions []Precondition `yaml:"preconditions"`
	Resources     []Resource     `yaml:"resources"`
	Post          *Post          `yaml:"post"`
}

// Param is one named input of the pipeline. Params resolve in config order,
// before the preconditions. Its source is "event.<field>", "env.<NAME>",
// "config.<path>" (the adapter config, e.g. config.adapter.name; see
// AdapterConfig.Values), a dotted path into an earlier param
// ("clusterStatus.name", where clusterStatus is an api_call param) or into
// adapter, a bare event path ("generation" is event.generation when no
// earlier param is called generation), or a mapping with api_call (the
// decoded JSON response), expression (CEL over the params before it) or
// file ({path, trim}: the file's text, read on every event).
//
// A later param may reuse an earlier one's name: when it yields a value
// (or has a default) that value replaces the earlier one from then on; when
// it yields nothing the earlier value stays, as in hyperfleet-adapter.
type Param struct {
	Name        string      `yaml:"name"`
	Source      ParamSource `yaml:"source"`
	Type        string      `yaml:"type"`
	Required    bool        `yaml:"required"`
	Default     any         `yaml:"default"`
	Description string      `yaml:"description"`
}

// ParamSource is where a param's value comes from; exactly one of Path,
// APICall, Expression and File is set.
type ParamSource struct {
	Path       string       `yaml:"-"`
	APICall    *APICall     `yaml:"api_call"`
	Expression *celenv.Expr `yaml:"expression"`
	File       *FileSource  `yaml:"file"`

	// Kind, Root and Field are Path compiled at load: Kind is one of the
	// SourceKind constants, Root the param or built-in a PathParam source
	// starts from (or the variable name of PathEnv), Field the dotted path
	// below it (empty: the whole value).
	Kind  SourceKind `yaml:"-"`
	Root  string     `yaml:"-"`
	Field string     `yaml:"-"`
}

// SourceKind says what a string param source reads.
type SourceKind int

// Kinds of string param sources.
const (
	SourceNone  SourceKind = iota
	PathEvent              // event.<path>, or a bare path no earlier param starts
	PathEnv                // env.<NAME>
	PathConfig             // config.adapter.name / config.adapter.version
	PathParam              // <earlier param>.<path>
	PathAdapter            // adapter.<path> (name, version)
)

// FileSource reads a param from a file on every event (a rotated token,
// a mounted value): at most MaxFileBytes, a regular file; Trim (default
// true) strips surrounding white space.
type FileSource struct {
	Path string `yaml:"path"`
	Trim *bool  `yaml:"trim"`
}

func (s *ParamSource) DecodeNode(d *configfile.Decoder, n *yaml.Node, path string) {
	if n.Kind == yaml.ScalarNode {
		s.Path = n.Value
		return
	}
	type plain ParamSource
	d.DecodeStruct(n, configfile.ReflectValue((*plain)(s)), path)
}

// APICall is an HTTP call to the HyperFleet API. URL, Body and header values
// are templates. Relative URLs get the API prefix (see HyperfleetAPIConfig).
// Timeout and retries default to the adapter config's client settings.
type APICall struct {
	Method        string              `yaml:"method"`
	URL           tmpl.Text           `yaml:"url"`
	Body          tmpl.Text           `yaml:"body"`
	Headers       []Header            `yaml:"headers"`
	Timeout       configfile.Duration `yaml:"timeout"`
	RetryAttempts int                 `yaml:"retry_attempts"`
	RetryBackoff  string              `yaml:"retry_backoff"`
}

// Header is one HTTP header; Value is a template.
type Header struct {
	Name  string    `yaml:"name"`
	Value tmpl.Text `yaml:"value"`
}

// Precondition gates the resources phase. It may call the API (the response
// is bound to the precondition's name), capture values from the response, and
// test either structured conditions or a CEL expression. When a precondition
// is not met, resources are skipped and status is still reported.
type Precondition struct {
	Name        string       `yaml:"name"`
	Description string       `yaml:"description"`
	Log         *LogAction   `yaml:"log"`
	APICall     *APICall     `yaml:"api_call"`
	Capture     []Capture    `yaml:"capture"`
	Conditions  []Condition  `yaml:"conditions"`
	Expression  *celenv.Expr `yaml:"expression"`

	// Checks holds, for structured conditions, each condition compiled
	// alone (Expression is their conjunction), in order; they are
	// evaluated only to name the failed ones in the skip reason of a
	// precondition not met.
	Checks []*celenv.Expr `yaml:"-"`
}

// Capture binds a value taken from an API response: Field is a dotted path
// ("status.phase"), Expression is CEL whose variables are the response's
// top-level fields.
//
// Default is bound when a field capture's path is absent from the response
// (or null); it is ignored for expression captures, as in hyperfleet-adapter.
type Capture struct {
	Name        string       `yaml:"name"`
	Field       string       `yaml:"field"`
	Expression  *celenv.Expr `yaml:"expression"`
	Default     any          `yaml:"default"`
	Description string       `yaml:"description"`
}

// Condition is a structured test: Field (a variable or dotted path) compared
// with Value by Operator (equals, notEquals, in, notIn, contains,
// greaterThan, lessThan, exists). It is compiled to CEL at load.
//
// Values is hyperfleet-adapter's other spelling of Value (for in and
// notIn lists); set one of them.
type Condition struct {
	Field    string `yaml:"field"`
	Operator string `yaml:"operator"`
	Value    any    `yaml:"value"`
	Values   any    `yaml:"values"`
}

// LogAction writes Message (a template) to the adapter's log at Level
// (debug, info — the default —, warn or warning, error) when its
// precondition or post action runs, as hyperfleet-adapter does; a message
// that fails to render is logged as an error and changes nothing else.
type LogAction struct {
	Message tmpl.Text `yaml:"message"`
	Level   string    `yaml:"level"`
}

// When is a rule: a CEL expression or structured conditions (all must hold).
type When struct {
	Expression *celenv.Expr `yaml:"expression"`
	Conditions []Condition  `yaml:"conditions"`

	// Compiled is the rule as one CEL program (conditions are translated).
	Compiled *celenv.Expr `yaml:"-"`
}

// Resource is one ManifestWork bundle delivered through Maestro
// (transport.client: maestro), or one Kubernetes object applied straight to
// a cluster's API server (transport.client: kubernetes, HyperFleet's default
// when a resource has no transport). The decision is the same for both.
type Resource struct {
	Name              string            `yaml:"name"`
	Transport         Transport         `yaml:"transport"`
	Manifest          *ManifestSpec     `yaml:"manifest"`
	Discovery         *Discovery        `yaml:"discovery"`
	NestedDiscoveries []NestedDiscovery `yaml:"nested_discoveries"`
	Lifecycle         *Lifecycle        `yaml:"lifecycle"`
	// AllowDestructiveRecreate must be true for a recreate rule on a bundle
	// holding a Namespace or CustomResourceDefinition, or on a kubernetes
	// resource of one of those kinds: recreating it deletes everything
	// inside it.
	AllowDestructiveRecreate bool `yaml:"allow_destructive_recreate"`
	// RecreateOnChange is HyperFleet's older resource-level flag: true is a
	// recreate rule that always holds (lifecycle.recreate.when: "true"), so a
	// bundle whose fingerprint differs is deleted and created again instead
	// of updated. It needs discovery, as lifecycle.recreate does, and
	// cannot be combined with lifecycle.recreate.
	RecreateOnChange bool `yaml:"recreate_on_change"`

	workName *tmpl.Template // compiled at load; see WorkName
	// transportDefaulted: no transport was written (kubernetes by default).
	transportDefaulted bool
}

// Transport clients.
const (
	TransportMaestro    = "maestro"
	TransportKubernetes = "kubernetes"
)

// Transport says how the resource is delivered: Client is "maestro" (a
// ManifestWork through Maestro; Maestro names the consumer) or
// "kubernetes" (the manifest itself, applied to the API server of
// clients.kubernetes). A resource without a transport is a kubernetes one,
// as in HyperFleet's adapter, unless its manifest is a ManifestWork; the
// load sets Client to what it resolved.
type Transport struct {
	Client  string            `yaml:"client"`
	Maestro *MaestroTransport `yaml:"maestro"`
}

// MaestroTransport names the Maestro consumer (target cluster); a template.
type MaestroTransport struct {
	TargetCluster tmpl.Text `yaml:"target_cluster"`
}

// ManifestSpec is the ManifestWork template: inline YAML, or {ref: file}
// resolved relative to the task config file and confined to its folder.
type ManifestSpec struct {
	Ref    string `yaml:"-"`
	Inline any    `yaml:"-"`

	// Compiled is the template ready to render.
	Compiled *Manifest `yaml:"-"`
}

func (m *ManifestSpec) DecodeNode(d *configfile.Decoder, n *yaml.Node, path string) {
	if n.Kind == yaml.MappingNode && len(n.Content) == 2 && n.Content[0].Value == "ref" {
		d.Errs.Lines[path+".ref"] = n.Content[0].Line
		var ref string
		d.Decode(n.Content[1], configfile.ReflectValue(&ref), path+".ref")
		m.Ref = ref
		return
	}
	if n.Kind != yaml.MappingNode {
		d.Errs.AddAt(path, n.Line, "must be a ManifestWork mapping or {ref: file}, not %s", configfile.Describe(n))
		return
	}
	d.DecodeAny(n, configfile.ReflectValue(&m.Inline), path)
}

// Discovery finds the bundle in Maestro; by_name is what the reconciler uses.
// On a maestro resource Namespace matters only in nested discoveries: a
// template, rendered per event, that the manifest's metadata.namespace must
// equal; empty or "*" (HyperFleet's "all namespaces") matches any namespace.
//
// On a kubernetes resource discovery finds the object on the cluster:
// by_name (a Get of the manifest's apiVersion and kind in Namespace, or in
// the manifest's metadata.namespace when Namespace is empty) or
// by_selectors (a List in Namespace, all namespaces when empty or "*";
// more than one match is an error naming the resource).
type Discovery struct {
	Namespace   tmpl.Text  `yaml:"namespace"`
	ByName      tmpl.Text  `yaml:"by_name"`
	BySelectors *Selectors `yaml:"by_selectors"`
}

// Selectors select by labels.
type Selectors struct {
	// LabelSelector maps label keys to values; both are templates.
	LabelSelector map[string]tmpl.Text `yaml:"label_selector"`

	// Labels is LabelSelector compiled, sorted by key source.
	Labels []Label `yaml:"-"`
}

// Label is one label of a selector: its key and its value, both templates
// rendered for each event, as hyperfleet-adapter renders them.
type Label struct{ Key, Value tmpl.Text }

// NestedDiscovery promotes one manifest of the bundle to resources.<name> in
// CEL, enriched with its conditions and statusFeedback.
type NestedDiscovery struct {
	Name      string    `yaml:"name"`
	Discovery Discovery `yaml:"discovery"`
}

// Lifecycle holds the create, delete and recreate rules. Delete always
// wins: when its rule is true the other rules are not even evaluated.
type Lifecycle struct {
	Create   *CreateRule    `yaml:"create"`
	Delete   *LifecycleRule `yaml:"delete"`
	Recreate *LifecycleRule `yaml:"recreate"`
}

// CreateRule gates the creation of an absent bundle (HyperFleet's
// lifecycle.create): while the bundle is absent and When is false it is not
// created (operation skip, reason Skipped); once it exists the rule is no
// longer evaluated and the bundle is updated as any other. It needs
// discovery on the resource and a when.
type CreateRule struct {
	When *When `yaml:"when"`
}

// LifecycleRule fires when When holds. DeletionDeadline (default 10m) is how
// long a deletion may stay pending before the outcome says stalled.
// PropagationPolicy (Background, the default, Foreground or Orphan) is the
// delete's propagation on a kubernetes resource; a Maestro bundle ignores it
// (its spec.deleteOption governs), with a load warning.
//
// A delete the agent has not confirmed is sent again once by the events
// that fall within RedeleteWindow after the first window (the prompt
// re-send: an agent that lost the deletion would apply its objects again at
// its next requeue). Past the deadline a stalled deletion is escalated: the
// delete is sent again at most Redeletes times (default DefaultRedeletes; 0
// turns both off), once per deadline period, by events that fall within
// RedeleteWindow (default DefaultRedeleteWindow) after the period begins.
// Both are normalized at load: after a successful load Redeletes is never
// nil and RedeleteWindow never zero.
type LifecycleRule struct {
	When              *When               `yaml:"when"`
	DeletionDeadline  configfile.Duration `yaml:"deletion_deadline"`
	Redeletes         *int                `yaml:"redeletes"`
	RedeleteWindow    configfile.Duration `yaml:"redelete_window"`
	PropagationPolicy string              `yaml:"propagation_policy"`
}

// Post builds payloads and runs post actions; it always runs, also when a
// phase failed or a deletion is pending.
type Post struct {
	Payloads    []Payload    `yaml:"payloads"`
	PostActions []PostAction `yaml:"post_actions"`
}

// Payload is a JSON document built from Build: string leaves are templates,
// {expression: CEL} leaves are CEL values, everything else is literal.
type Payload struct {
	Name     string `yaml:"name"`
	When     *When  `yaml:"when"`
	Build    any    `yaml:"build"`
	BuildRef string `yaml:"build_ref"`

	// Compiled is Build with templates and expressions compiled.
	Compiled BuildNode `yaml:"-"`
}

// PostAction calls the API, typically PUT of a payload as the status.
// Log is written before the call; an action may be only a log.
type PostAction struct {
	Name    string     `yaml:"name"`
	When    *When      `yaml:"when"`
	Log     *LogAction `yaml:"log"`
	APICall *APICall   `yaml:"api_call"`
}

// isEmpty reports a task config that would do nothing at all.
func (c *TaskConfig) IsEmpty() bool {
	noPost := c.Post == nil || (len(c.Post.Payloads) == 0 && len(c.Post.PostActions) == 0)
	return len(c.Params) == 0 && len(c.Resources) == 0 && noPost
}

// Dir is the folder manifest refs of this task config resolve against.
func (c *TaskConfig) Dir() string { return filepath.Dir(c.File) }

// apiCalls lists every api_call of the task config.
func (c *TaskConfig) APICalls() []*APICall {
	var out []*APICall
	for i := range c.Params {
		if a := c.Params[i].Source.APICall; a != nil {
			out = append(out, a)
		}
	}
	for i := range c.Preconditions {
		if a := c.Preconditions[i].APICall; a != nil {
			out = append(out, a)
		}
	}
	if c.Post != nil {
		for i := range c.Post.PostActions {
			if a := c.Post.PostActions[i].APICall; a != nil {
				out = append(out, a)
			}
		}
	}
	return out
}
