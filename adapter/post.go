package adapter

import (
	"context"
	"errors"
	"fmt"

	"github.com/bundle-adapter/bundle-adapter/task"
	"github.com/bundle-adapter/bundle-adapter/tmpl"
)

// runPost builds the payloads and runs the post actions. It always runs,
// after a failure or while a deletion is pending too, so the status says
// what happened. A payload or action whose when-rule is false is skipped.
func (r *eventRun) runPost(ctx context.Context) {
	post := r.p.task.Post
	if post == nil {
		return
	}
	r.result.Payloads = map[string]any{}
	for i := range post.Payloads {
		pl := &post.Payloads[i]
		if !r.when(ctx, pl.When, "post", pl.Name) {
			continue
		}
		r.payload = pl.Name
		v, err := r.build(ctx, pl.Compiled)
		if err != nil {
			r.phaseError("post", pl.Name, err)
			continue
		}
		r.result.Payloads[pl.Name] = v
		r.bindPayload(pl.Name, v)
	}
	for i := range post.PostActions {
		a := &post.PostActions[i]
		if !r.when(ctx, a.When, "post", a.Name) {
			continue
		}
		r.logAction(a.Log, "action", a.Name)
		if a.APICall == nil {
			continue // a log-only action
		}
		if _, err := r.callAPI(ctx, a.APICall); err != nil {
			if IsResourceNotFound(err) {
				// The resource is gone: the remaining actions are skipped
				// and the event is not failed (hyperfleet-adapter's rule).
				r.log.Info("resource not found, remaining post actions skipped", "action", a.Name, "error", err.Error())
				r.result.Skipped, r.result.SkipReason = true, ReasonResourceNotFound
				return
			}
			r.phaseError("post", a.Name, err)
			continue
		}
		r.log.Info("post action done", "action", a.Name, "method", a.APICall.Method)
	}
}

// bindPayload exposes a payload to CEL as a value and to templates as JSON
// text, so body: "{{ .status }}" sends it as JSON.
func (r *eventRun) bindPayload(name string, v any) {
	b := payloadJSON(v)
	r.vars[name] = v
	r.data[name] = string(b)
}

// when evaluates an optional rule; an error is reported and counts as false.
func (r *eventRun) when(ctx context.Context, w *task.When, phase, step string) bool {
	if w == nil || w.Compiled == nil {
		return true
	}
	ok, err := r.evalRule(ctx, w.Compiled, "when")
	if err != nil {
		r.phaseError(phase, step, err)
		return false
	}
	return ok
}

// defaultable reports whether a leaf's evaluation error lets its default
// stand in: a CEL evaluation error (a missing field, a type error), not the
// timeout, the cost limit or a cancelled event.
func defaultable(err error) bool {
	var ce *celError
	return errors.As(err, &ce) && !ce.limit
}

// nullLeaf records a payload leaf without a default whose expression
// failed: it is built as null, as hyperfleet-adapter builds it, logged
// (with the event id, the payload and the leaf's path) and counted in
// Result.NullLeaves.
func (r *eventRun) nullLeaf(path string, err error) {
	r.log.Warn("payload leaf without a default failed; sent as null", "payload", r.payload, "path", path, "error", err.Error())
	if r.result.NullLeaves == nil {
		r.result.NullLeaves = map[string]int{}
	}
	r.result.NullLeaves[r.payload]++
}

// build evaluates a compiled payload tree into plain JSON-able values. A
// leaf whose expression fails with a CEL error takes its default, or
// without one is null (nullLeaf), and so is a template leaf that reaches a
// missing value (tmpl.ErrMissingValue); the cost limit, the timeout and a
// cancelled event still fail the payload.
func (r *eventRun) build(ctx context.Context, n task.BuildNode) (any, error) {
	switch {
	case n.Expr != nil:
		v, err := r.eval(ctx, n.Expr)
		if n.HasDefault && (v == nil || defaultable(err)) {
			return n.Default, nil
		}
		if err != nil && defaultable(err) {
			r.nullLeaf(n.Expr.Path, err)
			return nil, nil
		}
		return v, err
	case n.Template != nil:
		s, err := r.execute(n.Template)
		if errors.Is(err, tmpl.ErrMissingValue) {
			r.nullLeaf(n.Template.Name, err) // a missing value: null and counted, as a failing expression
			return nil, nil
		}
		return s, err
	case n.IsMap:
		out := make(map[string]any, len(n.Map))
		for _, f := range n.Map {
			v, err := r.build(ctx, f.Node)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", f.Key, err)
			}
			out[f.Key] = v
		}
		return out, nil
	case n.IsList:
		out := make([]any, len(n.List))
		for i, e := range n.List {
			v, err := r.build(ctx, e)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	default:
		return n.Literal, nil
	}
}
