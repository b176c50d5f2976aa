package configtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/broker"
	"github.com/bundle-adapter/bundle-adapter/bundles"
	"github.com/bundle-adapter/bundle-adapter/hyperfleetapi/apistub"
	"github.com/bundle-adapter/bundle-adapter/internal/configfile"
	"github.com/bundle-adapter/bundle-adapter/kubeclient/memkube"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/memmaestro"
	"github.com/bundle-adapter/bundle-adapter/memrun"
)

// DefaultNow is the clock of a step that sets no now and has no earlier
// step or default that does: tests never read the real clock.
const DefaultNow = "2026-01-01T00:00:00Z"

func parseNow(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("must be an RFC 3339 time such as 2026-01-02T15:04:05Z, not %q", s)
	}
	return t, nil
}

// caseRun is one case under way: one pipeline (one adapter process, as
// serve runs it) whose Maestro and API server state carry from step to
// step, and the inputs the next step inherits.
type caseRun struct {
	t        *loaded
	fakes    memrun.Fakes
	api      apiSwitch
	pipeline *adapter.Pipeline
	// warns collects what the pipeline logs at warn level, all steps.
	warns *memrun.Warnings
	in    Inputs
	now   time.Time
	// last is the result of the last step run.
	last *adapter.Result
}

// apiSwitch is the pipeline's HyperFleet API: each step answers from its
// own responses, and the step's calls are listed with their answers (a
// failing step shows them).
type apiSwitch struct {
	stub  *apistub.Stub
	calls []string
}

func (a *apiSwitch) Do(ctx context.Context, req adapter.APIRequest) (adapter.APIResponse, error) {
	before := len(a.stub.Calls())
	resp, err := a.stub.Do(ctx, req)
	call := req.Method + " " + req.URL
	if calls := a.stub.Calls(); len(calls) > before {
		call = req.Method + " " + calls[len(calls)-1].Path
	}
	if err != nil {
		a.calls = append(a.calls, call+" -> "+err.Error())
	} else {
		a.calls = append(a.calls, fmt.Sprintf("%s -> %d", call, resp.Status))
	}
	return resp, err
}

// stepOutcome is one step run: what it produced, or why it could not run
// (invalid: the test file is wrong, not the config).
type stepOutcome struct {
	step       *Step
	mismatches []mismatch
	summary    []string // how the event ended, shown under a failing step
	// warnings are what serve would log at warn level for the step's event.
	warnings []string
	invalid  error
	actual   *actual // what the step produced; nil when it could not run
}

// runCase runs every step of c, stopping at the first step that cannot run.
func (t *loaded) runCase(c loadedCase) []stepOutcome {
	r := &caseRun{t: t, in: t.file.Defaults}
	r.in.Env = maps.Clone(r.in.Env)
	var out []stepOutcome
	for i, s := range c.steps {
		o := stepOutcome{step: s}
		seen := r.warnCount()
		r.last = nil
		act, err := r.step(s)
		o.warnings = r.warnsSince(seen)
		if t.traced != nil && r.last != nil {
			t.traced(TracedStep{File: t.path, Case: c.name, Step: i + 1, StepName: s.Name, Result: r.last, Warnings: o.warnings})
		}
		if err != nil {
			o.invalid = err
			return append(out, o)
		}
		o.actual = act
		o.mismatches = check(s.Expect, act)
		if len(o.mismatches) > 0 {
			o.summary = act.summary()
		}
		out = append(out, o)
	}
	return out
}

// step runs one step: inherit the inputs, set up what exists, run the
// event through the pipeline and collect what it produced.
func (r *caseRun) step(s *Step) (*actual, error) {
	r.inherit(s.Inputs)
	invalid := func(path string, line int, format string, args ...any) error {
		return configfile.Errors{{File: r.t.path, Line: line, Path: path, Msg: fmt.Sprintf(format, args...)}}
	}
	if r.in.Event == nil {
		return nil, invalid(configfile.JoinPath(s.path, "event"), s.line, "the step has no event: give one here, in an earlier step or in defaults")
	}
	ev, err := broker.ReadStructured(bytes.NewReader(r.in.Event.JSON))
	if err != nil {
		return nil, invalid(r.in.Event.Path, r.in.Event.Line, "not a CloudEvent: %v", err)
	}
	if err := r.existing(s); err != nil {
		return nil, err
	}
	if s.ConfirmDeletions {
		r.confirmDeletions()
	}
	var responses io.Reader
	if d := r.in.APIResponses; d != nil {
		responses = bytes.NewReader(d.JSON)
	}
	r.api.calls = nil
	if r.api.stub, err = memrun.API(r.t.cfg, responses); err != nil {
		return nil, invalid(r.in.APIResponses.Path, r.in.APIResponses.Line, "%v", err)
	}
	if r.pipeline == nil {
		f := r.fakes
		r.warns = &memrun.Warnings{}
		opts := memrun.PipelineOptions(r.t.cfg, memrun.Fakes{Maestro: f.Maestro, Kube: f.Kube, API: &r.api, Warnings: r.warns}, r.clock, r.lookupEnv)
		if r.t.wrap != nil {
			r.t.wrap(&opts)
		}
		p, err := adapter.New(opts)
		if err != nil {
			return nil, invalid("env", s.line, "%v", err)
		}
		r.pipeline = p
	}
	res := r.pipeline.Run(context.Background(), ev)
	r.last = res
	a, err := r.collect(res)
	if a != nil {
		a.apiCalls = r.api.calls
	}
	return a, err
}

// warnCount is how many warnings the case's pipeline logged so far.
func (r *caseRun) warnCount() int {
	if r.warns == nil {
		return 0
	}
	return len(r.warns.List())
}

// warnsSince returns the warnings logged after the first n.
func (r *caseRun) warnsSince(n int) []string {
	if r.warns == nil {
		return nil
	}
	if l := r.warns.List(); len(l) > n {
		return l[n:]
	}
	return nil
}

// inherit sets the inputs a step gives over those it inherits; env
// variables are merged, a step's value winning.
func (r *caseRun) inherit(in Inputs) {
	if in.Event != nil {
		r.in.Event = in.Event
	}
	if in.APIResponses != nil {
		r.in.APIResponses = in.APIResponses
	}
	if in.Now != "" {
		r.in.Now = in.Now
	}
	if r.in.Env == nil {
		r.in.Env = map[string]string{}
	}
	maps.Copy(r.in.Env, in.Env)
	now := r.in.Now
	if now == "" {
		now = DefaultNow
	}
	r.now, _ = parseNow(now) // checked at load
}

func (r *caseRun) clock() time.Time { return r.now }

// lookupEnv reads only the test file's env: a test never depends on the
// environment it runs in.
func (r *caseRun) lookupEnv(name string) (string, bool) {
	v, ok := r.in.Env[name]
	return v, ok
}

// existing sets up what exists before the event: empty on the first step,
// what the step's maestro_state, kube_state or discovery says (a new
// adapter process then: the pipeline is built again), or what the step
// before left.
func (r *caseRun) existing(s *Step) error {
	cfg := r.t.cfg
	mopts, kopts := memrun.MaestroOptions(cfg, r.clock), memrun.KubeOptions(r.clock)
	fail := func(d *Doc, err error) error {
		return configfile.Errors{{File: r.t.path, Line: d.Line, Path: d.Path, Msg: err.Error()}}
	}
	if r.fakes.Maestro == nil {
		r.fakes = memrun.Fakes{Maestro: memrun.NewMaestro(memmaestro.New(mopts)), Kube: memkube.New(kopts)}
	}
	var err error
	if d := s.MaestroState; d != nil {
		if r.fakes.Maestro, err = memrun.MaestroState(bytes.NewReader(d.JSON), mopts); err != nil {
			return fail(d, err)
		}
		r.pipeline = nil
	}
	if d := s.KubeState; d != nil {
		if r.fakes.Kube, err = memrun.KubeState(bytes.NewReader(d.JSON), kopts); err != nil {
			return fail(d, err)
		}
		r.pipeline = nil
	}
	if d := s.Discovery; d != nil {
		if r.fakes.Maestro, err = memrun.MaestroDiscovery(bytes.NewReader(d.JSON), cfg.Task, mopts); err != nil {
			return fail(d, err)
		}
		if r.fakes.Kube, err = memrun.KubeDiscovery(bytes.NewReader(d.JSON), cfg.Task, kopts); err != nil {
			return fail(d, err)
		}
		r.pipeline = nil
	}
	return nil
}

// confirmDeletions is the agent confirming every pending deletion, and
// whatever held a deleting object on the API server letting go.
func (r *caseRun) confirmDeletions() {
	r.fakes.Maestro.ConfirmAll()
	for _, o := range r.fakes.Kube.Objects() {
		if o.GetDeletionTimestamp() != nil {
			ref := adapter.KubeRef{APIVersion: o.GetAPIVersion(), Kind: o.GetKind(), Namespace: o.GetNamespace(), Name: o.GetName()}
			_ = r.fakes.Kube.RemoveFinalizers(context.Background(), ref)
		}
	}
}

// actual is what one step produced, in JSON's types.
type actual struct {
	result    *adapter.Result
	resources map[string]adapter.Outcome
	payload   any            // the status payload; nil when not built
	hasPay    bool           // the payload was built
	objects   map[string]any // by resource name, the object after the step; absent when none
	apiCalls  []string       // "GET /api/hyperfleet/v1/clusters/c1 -> 200"
}

// summary says how the event ended and what it asked the API: what a
// person needs to see why every expectation of a step failed (an API
// response that does not match the request, a precondition not met).
func (a *actual) summary() []string {
	res := a.result
	out := []string{"the event: " + res.ExecutionStatus}
	if res.Skipped {
		out[0] += "; resources skipped: " + res.SkipReason
	}
	if e := res.Error; e != nil {
		out[0] += fmt.Sprintf("; first error: phase %s, step %s: %s", e.Phase, e.Step, e.Message)
	}
	for _, c := range a.apiCalls {
		out = append(out, "api call: "+c)
	}
	return out
}

func (r *caseRun) collect(res *adapter.Result) (*actual, error) {
	a := &actual{result: res, resources: map[string]adapter.Outcome{}, objects: map[string]any{}}
	for _, o := range res.Bundles {
		a.resources[o.Name] = o
	}
	if p, ok := res.Payloads[r.t.file.StatusPayload]; ok {
		v, err := normalize(p)
		if err != nil {
			return nil, fmt.Errorf("payload %s: %w", r.t.file.StatusPayload, err)
		}
		a.payload, a.hasPay = v, true
	}
	works := r.fakes.Maestro.Works()
	objs := r.fakes.Kube.Objects()
	for i := range r.t.cfg.Task.Resources {
		res := &r.t.cfg.Task.Resources[i]
		o := a.resources[res.Name]
		var obj any
		if res.IsKubernetes() {
			obj = kubeObject(objs, o)
		} else {
			obj = maestroWork(works, o)
		}
		if obj == nil {
			continue
		}
		v, err := normalize(obj)
		if err != nil {
			return nil, fmt.Errorf("object of %s: %w", res.Name, err)
		}
		a.objects[res.Name] = v
	}
	return a, nil
}

// maestroWork is the work of the outcome's consumer and name, as JSON.
func maestroWork(works []*workv1.ManifestWork, o adapter.Outcome) any {
	for _, w := range works {
		if w.Namespace == o.Consumer && w.Name == o.WorkName && o.WorkName != "" {
			w.APIVersion, w.Kind = "work.open-cluster-management.io/v1", "ManifestWork"
			data, err := json.Marshal(w)
			if err != nil {
				return nil
			}
			var v any
			if json.Unmarshal(data, &v) != nil {
				return nil
			}
			return v
		}
	}
	return nil
}

// kubeObject is the object the outcome names (namespace/name), the one
// carrying the outcome's fingerprint when several kinds share the name.
func kubeObject(objs []*unstructured.Unstructured, o adapter.Outcome) any {
	var found any
	for _, obj := range objs {
		if o.WorkName == "" || objectName(obj.GetNamespace(), obj.GetName()) != o.WorkName {
			continue
		}
		if found == nil || obj.GetAnnotations()[bundles.FingerprintAnnotation] == o.Fingerprint {
			found = obj.Object
		}
	}
	return found
}

func objectName(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}
