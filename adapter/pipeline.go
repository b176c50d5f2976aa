package adapter

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/bundle-adapter/bundle-adapter/config"
)

// Options configures a Pipeline. Task, Maestro and API are required.
type Options struct {
	Task    *config.TaskConfig
	Adapter config.AdapterInfo
	Maestro Maestro
	API     API
	// Clock defaults to time.Now.
	Clock func() time.Time
	// LookupEnv defaults to os.LookupEnv. Only variables the task config
	// names are ever read: params' env.X sources and the env.X reads of
	// CEL and templates (config.CELEnv.EnvVars); env holds only those. New
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
	// outside a loop is caught by config.CELCostLimit instead. An
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
	task    *config.TaskConfig
	info    config.AdapterInfo
	maestro Maestro
	api     API
	clock   func() time.Time
	env     func(string) (string, bool)
	log     *slog.Logger
	config  map[string]any

	celTimeout      time.Duration
	templateTimeout time.Duration

	recreations *recreations // seen pending, for reporting only (recreations.go)
}

// New checks the options and returns a pipeline.
func New(o Options) (*Pipeline, error) {
	if o.Task == nil || o.Maestro == nil || o.API == nil {
		return nil, errors.New("adapter: Options.Task, Maestro and API are required")
	}
	p := &Pipeline{task: o.Task, info: o.Adapter, maestro: o.Maestro, api: o.API,
		clock: o.Clock, env: o.LookupEnv, log: o.Logger, celTimeout: o.CELTimeout,
		templateTimeout: o.TemplateTimeout, config: o.Config, recreations: newRecreations()}
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
	if o.Task.CEL != nil {
		for _, v := range o.Task.CEL.EnvVars() {
			if _, ok := p.env(v.Name); !ok && v.Required {
				return nil, fmt.Errorf("adapter: %s (line %d) reads env.%s, but the environment variable %s is not set: every event would fail", v.Path, v.Line, v.Name, v.Name)
			}
		}
	}
	if p.celTimeout <= 0 {
		p.celTimeout = DefaultCELTimeout
	}
	if p.templateTimeout <= 0 {
		p.templateTimeout = DefaultTemplateTimeout
	}
	return p, nil
}

// Run processes one event through params, preconditions, bundles and post.
// It never returns early on a failure: post-processing always runs, so the
// status reports what happened, except when the API answered 404 for the
// event's resource (it was deleted: see IsResourceNotFound), which skips
// resources and post and acknowledges the event, as hyperfleet-adapter does. The Result says how the event ended and
// whether it should be acknowledged, redelivered or dead-lettered.
func (p *Pipeline) Run(ctx context.Context, ev Event) *Result {
	r := newRun(p, ev)
	r.ctx = ctx
	ok := r.resolveParams(ctx) && r.checkPreconditions(ctx)
	if ok {
		r.reconcileBundles(ctx)
	} else {
		r.skipBundles()
	}
	if !r.gone {
		r.runPost(ctx)
	}
	r.result.finish()
	return r.result
}

// reconcileBundles pre-discovers every bundle (one read for all, or one
// each; see discover), so every rule sees every bundle, then reconciles them
// in config order. A failure of one bundle is reported and the others still
// run.
func (r *eventRun) reconcileBundles(ctx context.Context) {
	bs := make([]*bundle, len(r.p.task.Resources))
	for i := range r.p.task.Resources {
		bs[i] = r.resolve(&r.p.task.Resources[i])
	}
	r.discover(ctx, bs)
	for _, b := range bs {
		if b.out.State != StateFailed {
			r.reconcile(ctx, b)
		}
		r.result.Bundles = append(r.result.Bundles, b.out)
		r.bundles[b.res.Name] = b.out.celValue()
	}
}

func (r *eventRun) skipBundles() {
	for i := range r.p.task.Resources {
		res := &r.p.task.Resources[i]
		out := Outcome{Name: res.Name, Reason: ReasonSkipped}
		r.result.Bundles = append(r.result.Bundles, out)
		r.bundles[res.Name] = out.celValue()
	}
}
