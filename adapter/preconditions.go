package adapter

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/bundle-adapter/bundle-adapter/celenv"
	"github.com/bundle-adapter/bundle-adapter/task"
	"github.com/bundle-adapter/bundle-adapter/tmpl"
)

// checkPreconditions runs the preconditions in order. The first one not met
// skips the resources phase (adapter.resourcesSkipped, skipReason); status is
// still reported. An error is reported and also skips the resources.
func (r *eventRun) checkPreconditions(ctx context.Context) bool {
	for i := range r.p.task.Preconditions {
		pc := &r.p.task.Preconditions[i]
		met, err := r.precondition(ctx, pc)
		if r.trace != nil {
			r.traceCheck(ctx, pc, met, err)
		}
		if err != nil && pc.APICall != nil && IsResourceNotFound(err) {
			r.resourceGone("preconditions", pc.Name, err)
			return false
		}
		if err != nil {
			r.phaseError("preconditions", pc.Name, err)
			return false
		}
		if !met {
			r.skip(fmt.Sprintf("precondition '%s' not met: %s", pc.Name, r.notMetDetails(ctx, pc)))
			return false
		}
	}
	return true
}

// resourceGone ends an event whose resource the HyperFleet API no longer
// has (a 404 on a param's or precondition's api_call, see
// IsResourceNotFound), as hyperfleet-adapter does: resources and post
// actions are skipped, adapter.skipReason is ResourceNotFound, the
// execution status stays success and the event is acknowledged. There is
// nothing to reconcile and no status to report on a deleted resource.
func (r *eventRun) resourceGone(phase, step string, err error) {
	r.gone = true
	r.log.Info("resource not found, event acknowledged without processing", "phase", phase, "step", step, "error", err.Error())
	r.skip(ReasonResourceNotFound)
}

func (r *eventRun) skip(reason string) {
	r.result.Skipped, r.result.SkipReason = true, reason
	r.adapter["resourcesSkipped"], r.adapter["skipReason"] = true, reason
	r.log.Info("resources skipped", "reason", reason)
}

func (r *eventRun) precondition(ctx context.Context, pc *task.Precondition) (bool, error) {
	r.logAction(pc.Log, "precondition", pc.Name)
	if pc.APICall != nil {
		body, err := r.callAPI(ctx, pc.APICall)
		if err != nil {
			return false, err
		}
		resp, err := decodeJSON(body)
		if err != nil {
			return false, fmt.Errorf("API response is not JSON: %v", err)
		}
		r.bind(pc.Name, resp)
		if err := r.capture(ctx, pc, resp); err != nil {
			return false, err
		}
	}
	if pc.Expression == nil {
		return true, nil
	}
	return r.evalRule(ctx, pc.Expression, "precondition "+pc.Name)
}

// capture binds values taken from an API response. A field path that is
// absent (or null) binds the capture's default, else null. Capture expressions see the response's top-level fields
// and the whole response under the precondition's name
// (has(clusterStatus.deleted_time)).
func (r *eventRun) capture(ctx context.Context, pc *task.Precondition, resp any) error {
	respVars := map[string]any{pc.Name: resp}
	if m, ok := resp.(map[string]any); ok {
		for k, v := range m {
			respVars[k] = v
		}
		respVars[pc.Name] = resp
	}
	for _, c := range pc.Capture {
		if c.Field != "" {
			v := lookupPath(resp, strings.TrimPrefix(c.Field, "."))
			if v == nil && c.Default != nil {
				v = c.Default // absent or null: the capture's default
			}
			r.bind(c.Name, v)
			continue
		}
		val, err := r.evalCEL(ctx, c.Expression, respVars)
		if err != nil {
			return err
		}
		v, err := celenv.GoValue(val)
		if err != nil {
			return &celError{path: c.Expression.Path, err: err}
		}
		r.bind(c.Name, v)
	}
	return nil
}

// callAPI renders and sends an api_call and returns the body of a 2xx answer.
// A request the API client refuses (*RefusedError: the URL leaves the
// configured API) makes the event invalid: the values that steered it came
// from the event, and no redelivery can change them.
func (r *eventRun) callAPI(ctx context.Context, c *task.APICall) ([]byte, error) {
	req, err := r.apiRequest(c)
	if err != nil {
		return nil, err
	}
	resp, err := r.p.api.Do(ctx, req)
	var refused *RefusedError
	if errors.As(err, &refused) {
		r.result.InvalidEvent = true
	}
	if err != nil {
		return nil, err
	}
	if err := checkStatus(req, resp); err != nil {
		return nil, err
	}
	return resp.Body, nil
}

func (r *eventRun) apiRequest(c *task.APICall) (APIRequest, error) {
	url, err := r.template(&c.URL)
	if err != nil {
		return APIRequest{}, err
	}
	body, err := r.template(&c.Body)
	if err != nil {
		return APIRequest{}, err
	}
	if body != "" {
		if err := tmpl.ValidJSONBody([]byte(body)); err != nil {
			return APIRequest{}, fmt.Errorf("%s: %w; nothing was sent", c.Body.Path, err)
		}
	}
	req := APIRequest{Method: c.Method, URL: url, Timeout: int64(c.Timeout), RetryAttempts: c.RetryAttempts}
	if body != "" {
		req.Body = []byte(body)
	}
	for i := range c.Headers {
		v, err := r.template(&c.Headers[i].Value)
		if err != nil {
			return APIRequest{}, err
		}
		if req.Headers == nil {
			req.Headers = map[string]string{}
		}
		req.Headers[c.Headers[i].Name] = v
	}
	return req, nil
}

// logAction writes a config log action (precondition or post action) at
// its level; a message that cannot be rendered is logged as an error.
func (r *eventRun) logAction(a *task.LogAction, kind, name string) {
	if a == nil {
		return
	}
	msg, err := r.template(&a.Message)
	if err != nil {
		r.log.Error("log action: message not rendered", kind, name, "error", err.Error())
		return
	}
	level := slog.LevelInfo
	switch a.Level {
	case "debug":
		level = slog.LevelDebug
	case "warn", "warning":
		level = slog.LevelWarn
	case "error":
		level = slog.LevelError
	}
	r.log.Log(r.ctx, level, "[config] "+msg, kind, name)
}
