package adapter

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/interpreter"

	"github.com/bundle-adapter/bundle-adapter/celenv"
	"github.com/bundle-adapter/bundle-adapter/tmpl"
)

// eventRun is the state of one event going through the pipeline.
type eventRun struct {
	p   *Pipeline
	ev  Event
	now time.Time
	log *slog.Logger
	// ctx is the event's context, kept for template executions, which
	// are reached from helpers that take no context (see renderContext).
	ctx context.Context

	// vars is the CEL activation: every name of the task config plus the
	// built-ins. resources, bundles and adapter are live maps updated as the
	// event progresses.
	vars       map[string]any
	activation interpreter.Activation
	resources  map[string]any
	bundles    map[string]any
	adapter    map[string]any
	env        map[string]any

	// data is the template data: params and captures, adapter, metadata,
	// event, and built payloads (as JSON text).
	data map[string]any

	result *Result
	// gone: the API answered 404 for the event's resource (resourceGone).
	gone bool
	// payload is the name of the payload being built (see nullLeaf).
	payload string
	// trace records the event when the pipeline traces (Options.Trace);
	// nil otherwise.
	trace *EventTrace
}

func newRun(p *Pipeline, ev Event) *eventRun {
	r := &eventRun{
		p: p, ev: ev, now: p.clock(),
		log:       p.log.With("event_id", ev.ID, "event_type", ev.Type),
		resources: map[string]any{},
		bundles:   map[string]any{},
		env:       map[string]any{},
		result:    &Result{Event: ev},
	}
	r.adapter = map[string]any{
		"name": p.info.Name, "version": p.info.Version,
		"executionStatus": ExecutionSuccess, "resourcesSkipped": false, "skipReason": "",
		"errorReason": "", "errorMessage": "",
	}
	md := &p.task.Metadata
	if p.info.Metadata != nil {
		md = p.info.Metadata // v0.1.1's envelope format: the adapter config's
	}
	meta := map[string]any{"name": md.Name, "labels": stringMap(md.Labels)}
	event := map[string]any{"id": ev.ID, "type": ev.Type, "source": ev.Source, "subject": ev.Subject, "data": ev.Data}
	for k, v := range ev.Data {
		if _, clash := event[k]; !clash || k == "id" {
			event[k] = v
		}
	}
	r.vars = make(map[string]any, len(p.task.CEL.Names))
	for _, n := range p.task.CEL.Names {
		r.vars[n] = nil
	}
	r.vars["event"], r.vars["env"], r.vars["metadata"] = event, r.env, meta
	r.vars["resources"], r.vars["bundles"], r.vars["adapter"] = r.resources, r.bundles, r.adapter
	r.vars[celenv.ClockVar] = types.Timestamp{Time: r.now}
	r.activation, _ = interpreter.NewActivation(r.vars)
	for _, v := range p.task.CEL.EnvVars() {
		if s, ok := p.env(v.Name); ok {
			r.env[v.Name] = s
		}
	}
	if p.secretParams != nil {
		r.trace = &EventTrace{}
	}
	r.data = map[string]any{"adapter": map[string]any{"name": p.info.Name, "version": p.info.Version}, "metadata": meta, "event": event, "env": r.env}
	return r
}

func stringMap(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// bind makes a value visible to CEL and to templates under name.
func (r *eventRun) bind(name string, v any) {
	r.vars[name] = v
	r.data[name] = v
}

// celError is a CEL evaluation failure, naming the expression's YAML path.
type celError struct {
	path string
	err  error
	// limit: stopped by the CEL timeout or cost limit, never defaulted.
	limit bool
}

func (e *celError) Error() string { return fmt.Sprintf("CEL %s: %v", e.path, e.err) }
func (e *celError) Unwrap() error { return e.err }

// errCELTimeout is the cause of the context of a CEL evaluation that ran
// past its timeout.
var errCELTimeout = errors.New("CEL evaluation timeout")

// evalCEL evaluates a compiled expression against vars (an activation or a
// map; the event's clock is added to a map for now() and condition ages), bounded by the pipeline's CEL timeout and celenv.CostLimit. An
// evaluation stopped by either limit fails with an error saying which limit
// and its value; every failure is a *celError naming the expression's YAML
// path.
func (r *eventRun) evalCEL(ctx context.Context, e *celenv.Expr, vars any) (ref.Val, error) {
	if m, ok := vars.(map[string]any); ok {
		if act, err := interpreter.NewActivation(m); err == nil {
			vars = clockActivation{Activation: act, now: types.Timestamp{Time: r.now}}
		}
	}
	if e.Uninterruptible {
		return r.evalUninterruptible(ctx, e, vars)
	}
	ctx, cancel := context.WithTimeoutCause(ctx, r.p.celTimeout, errCELTimeout)
	defer cancel()
	val, _, err := e.Program.ContextEval(ctx, vars)
	if err != nil {
		return nil, r.celFailure(e, err, func() bool { return ctx.Err() != nil })
	}
	return val, nil
}

// evalUninterruptible is evalCEL for a program without a comprehension,
// which never checks its context (see celenv.Expr.Uninterruptible): it
// evaluates without the timeout's context and timer, and a failure counts
// as stopped, as under that context, when the event's context is done or
// the timeout has passed.
func (r *eventRun) evalUninterruptible(ctx context.Context, e *celenv.Expr, vars any) (ref.Val, error) {
	deadline := time.Now().Add(r.p.celTimeout)
	val, _, err := e.Program.Eval(vars)
	if err != nil {
		return nil, r.celFailure(e, err, func() bool { return ctx.Err() != nil || !time.Now().Before(deadline) })
	}
	return val, nil
}

// celFailure is the *celError of a failed evaluation of e. stopped reports
// whether the evaluation's context was done (its timeout, or the event
// cancelled): such a failure is not a missing value either.
func (r *eventRun) celFailure(e *celenv.Expr, err error, stopped func() bool) *celError {
	var cancelled interpreter.EvalCancelledError
	limit := true
	switch {
	case errors.Is(err, errCELTimeout):
		err = fmt.Errorf("evaluation exceeded the CEL timeout of %v and was stopped", r.p.celTimeout)
	case errors.As(err, &cancelled) && cancelled.Cause == interpreter.CostLimitExceeded:
		err = fmt.Errorf("evaluation exceeded the CEL cost limit of %d and was stopped", celenv.CostLimit)
	case errors.As(err, &cancelled) || stopped():
		// cancelled (shutdown): not a missing value either
	default:
		limit = false
	}
	return &celError{path: e.Path, err: err, limit: limit}
}

// clockActivation is an activation (a capture's response fields) that
// also holds the event's clock.
type clockActivation struct {
	interpreter.Activation
	now types.Timestamp
}

func (a clockActivation) ResolveName(name string) (any, bool) {
	if name == celenv.ClockVar {
		return a.now, true
	}
	return a.Activation.ResolveName(name)
}

// eval evaluates a compiled expression against the event's variables.
func (r *eventRun) eval(ctx context.Context, e *celenv.Expr) (any, error) {
	val, err := r.evalCEL(ctx, e, r.activation)
	if err != nil {
		return nil, err
	}
	return celenv.GoValue(val)
}

// evalRule evaluates a rule that must yield a bool.
func (r *eventRun) evalRule(ctx context.Context, e *celenv.Expr, what string) (bool, error) {
	val, err := r.evalCEL(ctx, e, r.activation)
	if err != nil {
		return false, err
	}
	b, ok := val.(types.Bool)
	if !ok {
		return false, &celError{path: e.Path, err: fmt.Errorf("%s must be true or false, got %v (%s)", what, val, val.Type().TypeName())}
	}
	return bool(b), nil
}

// phaseError records a failure, keeps the first one for adapter.executionError
// and updates the adapter variables CEL sees in post.
func (r *eventRun) phaseError(phase, step string, err error) {
	pe := &PhaseError{Phase: phase, Step: step, Message: err.Error(), err: err}
	r.result.Errors = append(r.result.Errors, pe)
	if len(r.result.Errors) > 1 {
		return
	}
	r.adapter["executionStatus"] = ExecutionFailed
	r.adapter["executionError"] = map[string]any{"phase": phase, "step": step, "message": pe.Message}
	r.adapter["errorReason"] = "ExecutionFailed:" + phase
	r.adapter["errorMessage"] = pe.Message
}

// template renders a compiled text field with the event's data.
func (r *eventRun) template(t *tmpl.Text) (string, error) {
	if t == nil || t.T == nil {
		return "", nil
	}
	if t.T.IsLiteral() { // no context: a literal costs nothing
		return t.T.ExecuteContext(context.Background(), nil, r.now)
	}
	ctx, cancel := r.renderContext()
	defer cancel()
	s, err := t.T.ExecuteContext(ctx, r.data, r.now)
	if err != nil {
		return "", fmt.Errorf("template %s: %w", t.Path, r.templateError(ctx, err))
	}
	return s, nil
}

// execute runs a compiled template within the template timeout.
func (r *eventRun) execute(t *tmpl.Template) (string, error) {
	ctx, cancel := r.renderContext()
	defer cancel()
	s, err := t.ExecuteContext(ctx, r.data, r.now)
	return s, r.templateError(ctx, err)
}

// errTemplateTimeout is the cause of the context of a template execution
// that ran past the pipeline's template timeout.
var errTemplateTimeout = errors.New("template timeout")

// renderContext bounds one template execution (or one bundle's render):
// the event's context cut at the pipeline's template timeout.
func (r *eventRun) renderContext() (context.Context, context.CancelFunc) {
	ctx := r.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	return context.WithTimeoutCause(ctx, r.p.templateTimeout, errTemplateTimeout)
}

// templateError names the template timeout when it stopped an execution.
func (r *eventRun) templateError(ctx context.Context, err error) error {
	if errors.Is(err, errTemplateTimeout) || errors.Is(context.Cause(ctx), errTemplateTimeout) && errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("rendering exceeded the template timeout of %v and was stopped: %w", r.p.templateTimeout, err)
	}
	return err
}
