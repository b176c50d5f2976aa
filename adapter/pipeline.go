package adapter

import (
	"context"
	"log/slog"
	"os"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/bundle-adapter/bundle-adapter/bundles"
	"github.com/bundle-adapter/bundle-adapter/config"
	"github.com/bundle-adapter/bundle-adapter/task"
)

// Options configures a Pipeline. Task and API are required; Maestro when
// a resource of the task uses the maestro transport, Kube when one uses
// the kubernetes transport.
type Options struct {
	Task    *task.TaskConfig
	Adapter config.AdapterInfo
	Maestro Maestro
	API     API
	// Kube is the API server the kubernetes resources are applied to
	// (transport.client: kubernetes); see kubeclient and kubeclient/memkube.
	Kube Kube
	// View, when set, lets an event whose bundles are all unchanged skip
	// its Maestro read (see BundleView). nil: every event reads.
	View BundleView
	// Clock defaults to time.Now.
	Clock func() time.Time
	// LookupEnv defaults to os.LookupEnv. Only variables the task config
	// names are ever read: params' env.X sources and the env.X reads of
	// CEL and templates (celenv.Env.EnvVars); env holds only those. New
	// fails when a required one is not set.
	LookupEnv func(string) (string, bool)
	// Logger defaults to slog.Default().
	Logger *slog.Logger
	// Config is what param sources config.<path> read (see
	// config.AdapterConfig.Values); nil: only config.adapter.name and
	// config.adapter.version, from Adapter.
	Config map[string]any
	// CELTimeout bounds every CEL evaluation of an event (params,
	// preconditions, captures, lifecycle rules, post payloads and
	// conditions), each on its own; zero means DefaultCELTimeout. CEL
	// checks it every 100 comprehension iterations; a single costly call
	// outside a loop is caught by celenv.CostLimit instead. An
	// evaluation past either limit fails with an error naming the limit and
	// the expression's YAML path, reported like any CEL error (Health
	// False, the event redelivered).
	CELTimeout time.Duration
	// TemplateTimeout bounds every template execution of an event (URLs,
	// bodies, names, each bundle's manifest), each on its own; zero means
	// DefaultTemplateTimeout. An execution past it, or whose event's
	// context is cancelled (shutdown), stops at its next step (see
	// config.MaxTemplateSteps) and fails the bundle or call it was for
	// (RenderFailed, redelivered), naming the limit. Every execution is
	// also bounded by config's template budget, timeout or not.
	TemplateTimeout time.Duration
	// Tracer, when set, traces every event: a span per phase (params, each
	// param read from the API, preconditions, bundles, each bundle, post;
	// see the Span* names), children of the span in Run's context. Nil
	// (the default): no span is started and tracing costs nothing.
	Tracer trace.Tracer
	// FingerprintMemo is how many fingerprints of rendered bundles the
	// pipeline remembers by their inputs (bundles.Memo), so that an event
	// whose bundle inputs did not change decides without rendering; 0
	// means bundles.DefaultMemoSize, a negative value turns it off. Only a
	// manifest whose templates read nothing but paths of their data is
	// remembered (task.Manifest.Reads): one that uses now, or reads its
	// data whole, is rendered on every event.
	FingerprintMemo int
	// Trace, when true, records what each event computed in its
	// Result.Trace (EventTrace): params, preconditions, each resource's
	// discovery, rendered object, rules and decision, the status body;
	// secrets redacted. It only observes: the event runs the same. False
	// (serve): nothing is recorded and it costs nothing.
	Trace bool
}

// DefaultCELTimeout is the CEL evaluation timeout when Options.CELTimeout
// is zero.
const DefaultCELTimeout = 100 * time.Millisecond

// DefaultTemplateTimeout is the template execution timeout when
// Options.TemplateTimeout is zero.
const DefaultTemplateTimeout = time.Second

// Pipeline runs the task config for one event at a time per resource key;
// Run is safe for concurrent use on different events.
type Pipeline struct {
	task    *task.TaskConfig
	info    config.AdapterInfo
	maestro Maestro
	kube    Kube
	view    BundleView
	api     API
	clock   func() time.Time
	env     func(string) (string, bool)
	log     *slog.Logger
	config  map[string]any

	celTimeout      time.Duration
	templateTimeout time.Duration
	tracer          trace.Tracer
	// secretParams: Options.Trace is set; per param, whether the trace
	// redacts its value (trace_secrets.go). nil: no trace.
	secretParams []bool

	recreations *recreations // seen pending, for reporting only (recreations.go)

	memo      *bundles.Memo                 // nil: off
	memoReads map[*task.Resource][][]string // the maestro resources memo keys cover

	// adoptions remembers what adopting an observed object found, keyed by
	// that object's identity and version (adopt.go).
	adoptions *bundles.Memo

	// transports is the transport of each resource of the task.
	transports map[*task.Resource]transport
	// viewServes: the view may serve the event's Maestro bundles (see
	// discoverFromView, viewCanServe).
	viewServes bool
	// apiReads names the params and preconditions that read the API, where
	// the stale guard looks for the event's resource (stale.go).
	apiReads []string
}

// viewCanServe reports whether the view may serve a task's Maestro bundles:
// when no Kubernetes resource comes before a Maestro one. The view's trial
// decides every bundle before any write, with the outcomes of the bundles
// before it; an object reconciled before a bundle has an outcome the
// bundle's rules may read (bundles.<name>) that the trial cannot know yet,
// so such a task reads Maestro on every event. Objects are read as always.
func viewCanServe(tc *task.TaskConfig) bool {
	seenKube := false
	for i := range tc.Resources {
		switch {
		case tc.Resources[i].IsKubernetes():
			seenKube = true
		case seenKube:
			return false
		}
	}
	return true
}

// transportOrder is the order in which an event's transports read their
// resources at pre-discovery.
var transportOrder = []transport{kubeTransport{}, maestroTransport{}}

// transportsOf is the transport of each resource of tc.
func transportsOf(tc *task.TaskConfig) map[*task.Resource]transport {
	out := make(map[*task.Resource]transport, len(tc.Resources))
	for i := range tc.Resources {
		res := &tc.Resources[i]
		out[res] = transport(maestroTransport{})
		if res.IsKubernetes() {
			out[res] = kubeTransport{}
		}
	}
	return out
}

// New checks the options and returns a pipeline.
func New(o Options) (*Pipeline, error) {
	if err := checkTransports(o); err != nil {
		return nil, err
	}
	p := &Pipeline{task: o.Task, info: o.Adapter, maestro: o.Maestro, kube: o.Kube, view: o.View, api: o.API,
		clock: o.Clock, env: o.LookupEnv, log: o.Logger, celTimeout: o.CELTimeout,
		templateTimeout: o.TemplateTimeout, config: o.Config, tracer: o.Tracer,
		recreations: newRecreations(), adoptions: bundles.NewMemo(DefaultAdoptions), transports: transportsOf(o.Task)}
	if o.Trace {
		p.secretParams = secretParams(o.Task)
	}
	p.viewServes = p.view != nil && viewCanServe(o.Task)
	p.apiReads = p.apiReadNames()
	if p.maestro != nil {
		p.maestro = InterceptMaestro(p.maestro, countRequests)
	}
	if p.kube != nil {
		p.kube = InterceptKube(p.kube, countRequests)
	}
	if p.clock == nil {
		p.clock = time.Now
	}
	if p.config == nil {
		p.config = map[string]any{"adapter": map[string]any{"name": o.Adapter.Name, "version": o.Adapter.Version}}
	}
	if p.env == nil {
		p.env = os.LookupEnv
	}
	if p.log == nil {
		p.log = slog.Default()
	}
	if p.celTimeout <= 0 {
		p.celTimeout = DefaultCELTimeout
	}
	if p.templateTimeout <= 0 {
		p.templateTimeout = DefaultTemplateTimeout
	}
	if o.FingerprintMemo >= 0 {
		p.memo, p.memoReads = bundles.NewMemo(o.FingerprintMemo), memoReads(o.Task)
	}
	return p, nil
}

// memoReads are the data paths of every maestro resource whose manifest
// reads only paths of its data (task.Manifest.Reads).
func memoReads(tc *task.TaskConfig) map[*task.Resource][][]string {
	out := map[*task.Resource][][]string{}
	for i := range tc.Resources {
		res := &tc.Resources[i]
		if res.IsKubernetes() || res.Manifest == nil || res.Manifest.Compiled == nil {
			continue
		}
		if paths, ok := res.Manifest.Compiled.Reads(); ok {
			out[res] = paths
		}
	}
	return out
}

// Run processes one event through params, preconditions, bundles and post.
// It never returns early on a failure: post-processing always runs, so the
// status reports what happened, except in two cases that skip resources and
// post. When the API answered 404 for the event's resource (it was deleted:
// see IsResourceNotFound), the event is acknowledged, as hyperfleet-adapter
// does. When the event's generation is not the one the API answers for its
// resource (stale.go), nothing older than what was applied is written or
// reported: a stale event is acknowledged, one ahead of the API redelivered.
// The Result says how the event ended and whether it should be
// acknowledged, redelivered or dead-lettered.
func (p *Pipeline) Run(ctx context.Context, ev Event) *Result {
	r := newRun(p, ev)
	var requests requestCounts
	ctx = withRequestCounts(ctx, &requests)
	r.ctx = ctx
	r.withTraceID(ctx)
	ok := r.phase(ctx, SpanParams, r.resolveParams) && r.phase(ctx, SpanPreconditions, r.checkPreconditions)
	current := r.gone || r.checkGeneration()
	if ok && current {
		r.phase(ctx, SpanBundles, func(ctx context.Context) bool { r.reconcileBundles(ctx); return true })
	} else {
		r.skipBundles()
	}
	if !r.gone && current {
		r.phase(ctx, SpanPost, func(ctx context.Context) bool { r.runPost(ctx); return true })
	}
	r.result.MaestroRequests = int(requests.maestro.Load())
	r.result.KubeRequests = int(requests.kube.Load())
	r.result.finish()
	if r.trace != nil {
		r.finishTrace()
	}
	return r.result
}

func (r *eventRun) skipBundles() {
	for i := range r.p.task.Resources {
		res := &r.p.task.Resources[i]
		out := Outcome{Name: res.Name, Reason: ReasonSkipped}
		r.result.Bundles = append(r.result.Bundles, out)
		r.bundles[res.Name] = out.celValue()
	}
}
