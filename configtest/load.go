package configtest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/config"
	"github.com/bundle-adapter/bundle-adapter/internal/configfile"
	"github.com/bundle-adapter/bundle-adapter/task"
)

// maxInputBytes bounds every file a test file names (events, responses,
// states), as dry-run bounds its input files.
const maxInputBytes = 64 << 20

// loaded is a test file read, checked and with its configs loaded.
type loaded struct {
	path  string
	data  []byte     // the file as read, rewritten by --update
	root  *yaml.Node // the document, rewritten by --update
	file  File
	cfg   *config.Config
	cases []loadedCase
	// wrap, when set, changes the options of each pipeline a case builds
	// (the golden recorder wraps the clients; Options.Trace turns the
	// trace on).
	wrap func(*adapter.Options)
	// traced receives each step's result under Options.Trace.
	traced func(TracedStep)
}

type loadedCase struct {
	name  string
	line  int
	steps []*Step
}

// load reads and checks one test file and loads its configs. Every problem
// is a configfile.Errors naming file, line and field.
func load(path string) (*loaded, error) {
	l := configfile.NewErrorList(path)
	t, err := read(path, l)
	if err != nil {
		return nil, err
	}
	d := &configfile.Decoder{Errs: l}
	d.Decode(t.root, configfile.ReflectValue(&t.file), "")
	if len(l.Errs) > 0 {
		return nil, l.Result()
	}
	dir := filepath.Dir(path)
	t.check(l, dir)
	if len(l.Errs) > 0 {
		return nil, l.Result()
	}
	files := config.Files{Adapter: under(dir, t.file.AdapterConfig), Task: under(dir, t.file.TaskConfig), CheckWork: adapter.CheckWork}
	if t.cfg, err = config.Load(files, nil); err != nil {
		return nil, err
	}
	t.checkPayload(l)
	t.checkResourceNames(l)
	return t, l.Result()
}

// read reads the file once (the text --update edits) and parses its one
// YAML document.
func read(path string, l *configfile.ErrorList) (*loaded, error) {
	data, err := configfile.ReadFileBounded(path, configfile.MaxFileBytes)
	if err != nil {
		return nil, configfile.Errors{{File: path, Msg: fmt.Sprintf("cannot read: %v", configfile.UnwrapPathErr(err))}}
	}
	root, err := configfile.ParseYAML(data)
	if err != nil {
		fe := configfile.FieldError{File: path, Msg: "invalid YAML: " + err.Error()}
		var ye *configfile.YAMLError
		if errors.As(err, &ye) {
			fe.Line, fe.Msg = ye.Line, "invalid YAML: "+ye.Msg
		}
		return nil, configfile.Errors{fe}
	}
	if configfile.Resolve(root) == nil {
		return nil, configfile.Errors{{File: path, Msg: "file is empty (no YAML document)"}}
	}
	l.Lines[""] = 1
	return &loaded{path: path, root: root, data: data}, nil
}

// check checks what the decoder cannot: required fields, the config files
// exist, case names, steps, paths, and reads the input files.
func (t *loaded) check(l *configfile.ErrorList, dir string) {
	f := &t.file
	for _, c := range []struct{ key, val string }{{"adapter_config", f.AdapterConfig}, {"task_config", f.TaskConfig}} {
		if c.val == "" {
			l.Add(c.key, "is required: the %s file, relative to this file", c.key)
			continue
		}
		if _, err := os.Stat(under(dir, c.val)); err != nil {
			l.Add(c.key, "cannot read %s: %v", under(dir, c.val), configfile.UnwrapPathErr(err))
		}
	}
	if len(f.Cases) == 0 {
		l.Add("cases", "at least one case is required")
	}
	checkInputs(l, dir, &f.Defaults, "defaults")
	names := configfile.NewUniqueNames(l, "case")
	for i := range f.Cases {
		t.checkCase(l, dir, &f.Cases[i], configfile.IndexPath("cases", i), names)
	}
}

func (t *loaded) checkCase(l *configfile.ErrorList, dir string, c *Case, path string, names interface{ Check(string, string) bool }) {
	lc := loadedCase{name: c.Name, line: l.LineOf(path)}
	if c.Name == "" {
		l.Add(path, "name is required")
	} else {
		names.Check(path, c.Name)
	}
	inline := c.Expect != nil || c.Event != nil || c.APIResponses != nil || c.Env != nil || c.Now != "" ||
		c.MaestroState != nil || c.KubeState != nil || c.Discovery != nil || c.ConfirmDeletions
	switch {
	case len(c.Steps) > 0 && inline:
		l.Add(path, "give either steps or one step's fields (event, expect, ...) inline, not both")
	case len(c.Steps) == 0 && !inline:
		l.Add(path, "needs steps, or one step's fields (event, expect, ...) inline")
	case len(c.Steps) == 0:
		c.Step.line, c.Step.path = lc.line, path
		checkStep(l, dir, &c.Step, path)
		lc.steps = []*Step{&c.Step}
	default:
		for i := range c.Steps {
			sp := configfile.IndexPath(configfile.JoinPath(path, "steps"), i)
			c.Steps[i].line, c.Steps[i].path = l.LineOf(sp), sp
			checkStep(l, dir, &c.Steps[i], sp)
			lc.steps = append(lc.steps, &c.Steps[i])
		}
	}
	t.cases = append(t.cases, lc)
}

func checkStep(l *configfile.ErrorList, dir string, s *Step, path string) {
	checkInputs(l, dir, &s.Inputs, path)
	for _, d := range []*Doc{s.MaestroState, s.KubeState, s.Discovery} {
		readDoc(l, dir, d)
	}
	if s.MaestroState != nil && s.Discovery != nil {
		l.Add(configfile.JoinPath(path, "discovery"), "maestro_state and discovery both name the bundles that exist: give one")
	}
	if s.KubeState != nil && s.Discovery != nil {
		l.Add(configfile.JoinPath(path, "discovery"), "kube_state and discovery both name the objects that exist: give one")
	}
	if s.Expect == nil {
		l.Add(path, "expect is required: what the step must produce")
		return
	}
	checkExpect(l, s.Expect, configfile.JoinPath(path, "expect"))
}

func checkInputs(l *configfile.ErrorList, dir string, in *Inputs, path string) {
	readDoc(l, dir, in.Event)
	readDoc(l, dir, in.APIResponses)
	if in.Now != "" {
		if _, err := parseNow(in.Now); err != nil {
			l.Add(configfile.JoinPath(path, "now"), "%v", err)
		}
	}
}

func checkExpect(l *configfile.ErrorList, e *Expect, path string) {
	if e.ExecutionStatus != nil {
		configfile.OneOf(l, configfile.JoinPath(path, "execution_status"), fmt.Sprint(e.ExecutionStatus.V), adapter.ExecutionSuccess, adapter.ExecutionFailed)
	}
	if e.Skipped != nil {
		if _, ok := e.Skipped.V.(bool); !ok {
			l.AddAt(configfile.JoinPath(path, "skipped"), e.Skipped.Node.Line, "must be true or false, not %s", configfile.Describe(e.Skipped.Node))
		}
	}
	for name, r := range e.Resources {
		rp := configfile.JoinPath(configfile.JoinPath(path, "resources"), name)
		if r == nil {
			l.Add(rp, "must be a mapping of operation, state and reason")
			continue
		}
		if r.Operation != nil {
			configfile.OneOf(l, configfile.JoinPath(rp, "operation"), fmt.Sprint(r.Operation.V), "create", "update", "unchanged", "recreate", "delete", "skip", "")
		}
		if r.State != nil {
			configfile.OneOf(l, configfile.JoinPath(rp, "state"), fmt.Sprint(r.State.V), "done", "pending", "stalled", "failed", "")
		}
	}
	for typ, c := range e.Conditions {
		if c != nil && c.Message != nil && c.MessageRegexp != nil {
			l.Add(configfile.JoinPath(configfile.JoinPath(path, "conditions"), typ), "give message or message_regexp, not both")
		}
	}
	for _, group := range []struct {
		key string
		m   map[string]*Value
	}{{"data", e.Data}, {"payload", e.Payload}} {
		for p := range group.m {
			if _, err := parsePath(p); err != nil {
				l.Add(configfile.JoinPath(configfile.JoinPath(path, group.key), p), "%v", err)
			}
		}
	}
	for name, o := range e.Objects {
		checkObject(l, o, configfile.JoinPath(configfile.JoinPath(path, "objects"), name))
	}
}

// checkObject checks an object expectation: null (absent) or a mapping of
// paths to values.
func checkObject(l *configfile.ErrorList, o *Value, path string) {
	if o == nil || o.V == nil {
		return
	}
	n := configfile.Resolve(o.Node)
	if n.Kind != yaml.MappingNode {
		l.AddAt(path, n.Line, "must be a mapping of paths to values, or null (the object must not exist), not %s", configfile.Describe(n))
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if _, err := parsePath(n.Content[i].Value); err != nil {
			l.AddAt(configfile.JoinPath(path, n.Content[i].Value), n.Content[i].Line, "%v", err)
		}
	}
}

// readDoc reads the file a Doc names (relative to dir) into JSON.
func readDoc(l *configfile.ErrorList, dir string, d *Doc) {
	if d == nil || d.File == "" {
		return
	}
	p := under(dir, d.File)
	data, err := configfile.ReadFileBounded(p, maxInputBytes)
	if err != nil {
		l.AddAt(d.Path, d.Line, "cannot read %s: %v", p, configfile.UnwrapPathErr(err))
		return
	}
	v, err := configfile.DecodeYAML(data)
	if err != nil {
		l.AddAt(d.Path, d.Line, "%s: %v", p, err)
		return
	}
	if d.JSON, err = toJSON(v); err != nil {
		l.AddAt(d.Path, d.Line, "%s: %v", p, err)
	}
}

// checkPayload resolves status_payload: the named payload must exist; by
// default the task config's only payload. Without one, expectations that
// read it are errors.
func (t *loaded) checkPayload(l *configfile.ErrorList) {
	var names []string
	for _, p := range payloads(t.cfg) {
		names = append(names, p.Name)
	}
	switch {
	case t.file.StatusPayload != "":
		configfile.OneOf(l, "status_payload", t.file.StatusPayload, names...)
		return
	case len(names) == 1:
		t.file.StatusPayload = names[0]
		return
	}
	for _, c := range t.cases {
		for _, s := range c.steps {
			if e := s.Expect; e != nil && (len(e.Conditions) > 0 || len(e.Data) > 0 || len(e.Payload) > 0) {
				l.AddAt("status_payload", s.line, "the task config has %d payloads (%v): name the one conditions, data and payload read", len(names), names)
				return
			}
		}
	}
}

var errNoFiles = errors.New("no test files: name files, or folders holding *_test.yaml files")

func payloads(cfg *config.Config) []task.Payload {
	if cfg.Task.Post == nil {
		return nil
	}
	return cfg.Task.Post.Payloads
}

// under is p relative to dir, or p when absolute.
func under(dir, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
}

// checkResourceNames refuses expectations of resources the task config
// does not have: they could never be met.
func (t *loaded) checkResourceNames(l *configfile.ErrorList) {
	known := map[string]bool{}
	var names []string
	for i := range t.cfg.Task.Resources {
		known[t.cfg.Task.Resources[i].Name] = true
		names = append(names, t.cfg.Task.Resources[i].Name)
	}
	for _, c := range t.cases {
		for _, s := range c.steps {
			if s.Expect == nil {
				continue
			}
			for _, group := range []struct {
				key  string
				keys []string
			}{{"resources", sortedKeys(s.Expect.Resources)}, {"objects", sortedKeys(s.Expect.Objects)}} {
				for _, n := range group.keys {
					if !known[n] {
						p := configfile.JoinPath(configfile.JoinPath(configfile.JoinPath(s.path, "expect"), group.key), n)
						l.Add(p, "the task config has no resource %q (its resources: %s)", n, strings.Join(names, ", "))
					}
				}
			}
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
