package adapter

import (
	"context"
	"time"

	"github.com/bundle-adapter/bundle-adapter/task"
)

// EventTrace is what one event computed, phase by phase: the dry-run's and
// `bundle-adapter test`'s --trace. It is recorded only when Options.Trace
// is set (Result.Trace); with it off, nothing is recorded. Recording only
// observes: an event runs, writes and ends the same with it on or off.
//
// Secrets: the value of a param that reads a secret is never recorded
// (see secretParams), and every string of the trace that holds such a
// value has it replaced by REDACTED. The process environment is never
// recorded: only the values the task config reads.
//
// The JSON keys are a contract (docs/configuration.md, "Trace").
type EventTrace struct {
	Params        []TraceParam        `json:"params"`
	Preconditions []TracePrecondition `json:"preconditions"`
	// Generation is what the stale guard compared (Result.Generation).
	Generation GenerationCheck `json:"generation"`
	Resources  []TraceResource `json:"resources"`
	// Payloads are the built post payloads (the status body), by name.
	Payloads map[string]any `json:"payloads"`

	// secrets are the values of the secret params, replaced in every
	// string the trace shows (Scrub).
	secrets []string
}

// TraceParam is one param as the event resolved it. Value is REDACTED
// when Redacted. Defaulted: the value is the param's default (the source
// had none, or an optional param's source failed). Kept is false for a
// param that reused an earlier name without a value: the earlier value
// stayed.
type TraceParam struct {
	Name      string `json:"name"`
	Source    string `json:"source"`
	Value     any    `json:"value"`
	Redacted  bool   `json:"redacted"`
	Defaulted bool   `json:"defaulted"`
	Kept      bool   `json:"kept"`
	Error     string `json:"error,omitempty"`
}

// Precondition results (TracePrecondition.Result).
const (
	TraceMet    = "met"
	TraceNotMet = "not met"
	TraceError  = "error"
)

// TracePrecondition is one precondition that ran: its result (TraceMet,
// TraceNotMet, TraceError), why it was not met (the status's words), its
// error and the values its captures bound, in config order.
type TracePrecondition struct {
	Name     string         `json:"name"`
	Result   string         `json:"result"`
	Details  string         `json:"details,omitempty"`
	Error    string         `json:"error,omitempty"`
	Captures []TraceCapture `json:"captures"`
}

// TraceCapture is one captured value.
type TraceCapture struct {
	Name  string `json:"name"`
	Value any    `json:"value"`
}

// TraceResource is one resource of the event: what discovery found, what
// was rendered, the lifecycle rules evaluated, the decision and how it
// ended (Outcome).
type TraceResource struct {
	Name      string `json:"name"`
	Transport string `json:"transport"`
	// Consumer and WorkName address a Maestro bundle.
	Consumer   string         `json:"consumer,omitempty"`
	WorkName   string         `json:"workName,omitempty"`
	Discovered TraceDiscovery `json:"discovered"`
	// Rendered is the desired object, as sent or as it would be sent: the
	// ManifestWork (maestro) or the object (kubernetes), stamped with its
	// fingerprint; nil when it could not be rendered (RenderError).
	Rendered    map[string]any `json:"rendered"`
	RenderError string         `json:"renderError,omitempty"`
	// Rules are the lifecycle rules the decision evaluated, in order.
	Rules    []TraceRule   `json:"rules"`
	Decision TraceDecision `json:"decision"`
	Outcome  Outcome       `json:"outcome"`
}

// TraceDiscovery is the pre-discovery answer for a resource: whether it
// existed, its name, its fingerprint annotation and its deletion state.
type TraceDiscovery struct {
	Exists            bool   `json:"exists"`
	Name              string `json:"name,omitempty"`
	Fingerprint       string `json:"fingerprint,omitempty"`
	Deleting          bool   `json:"deleting"`
	DeletionTimestamp string `json:"deletionTimestamp,omitempty"`
}

// TraceRule is one lifecycle rule evaluated: lifecycle.create.when,
// lifecycle.delete.when or lifecycle.recreate.when, its value or error.
type TraceRule struct {
	Rule  string `json:"rule"`
	Value bool   `json:"value"`
	Error string `json:"error,omitempty"`
}

// Decision rows (TraceDecision.Row): which row of the decision table
// (decide) chose the operation.
const (
	RowDeleteWhen         = "delete.when"         // lifecycle.delete.when is true
	RowRecreateWhen       = "recreate.when"       // fingerprint differs, lifecycle.recreate.when is true
	RowCreateGate         = "create.when"         // absent, lifecycle.create.when is false
	RowDeleting           = "deleting"            // present and being deleted: no write, recreation pending
	RowAbsent             = "absent"              // absent: create
	RowFingerprintEqual   = "fingerprint-equal"   // present, desired fingerprint: no write
	RowAdopted            = "adopted"             // present, no fingerprint, same content: no write
	RowFingerprintDiffers = "fingerprint-differs" // present, fingerprint differs: update
	RowNotDecided         = "not-decided"         // failed before the decision (address, read)
	RowRuleFailed         = "rule-failed"         // a rule or the render failed
)

// TraceDecision is the decision: the operation, the write (none, create,
// update, delete, recreate, redelete), the table's row, and the desired
// fingerprint when one was computed.
type TraceDecision struct {
	Operation   Operation `json:"operation"`
	Write       string    `json:"write"`
	Row         string    `json:"row"`
	Fingerprint string    `json:"fingerprint,omitempty"`
}

var writeNames = [...]string{writeNone: "none", writeCreate: "create", writeUpdate: "update",
	writeDelete: "delete", writeRecreate: "recreate", writeRedelete: "redelete"}

// traceParam records a resolved param.
func (r *eventRun) traceParam(i int, v any, defaulted, kept bool, err error) {
	p := &r.p.task.Params[i]
	tp := TraceParam{Name: p.Name, Source: paramSourceText(p.Source), Value: v, Defaulted: defaulted, Kept: kept}
	if r.p.secretParams[i] {
		tp.Redacted = true
		r.trace.secrets = appendStrings(r.trace.secrets, v)
		if v != nil {
			tp.Value = redacted
		}
	}
	if err != nil {
		tp.Error = err.Error()
	}
	r.trace.Params = append(r.trace.Params, tp)
}

// paramSourceText says where a param's value comes from.
func paramSourceText(s task.ParamSource) string {
	if s.APICall != nil {
		return "api_call " + s.APICall.Method + " " + s.APICall.URL.Src
	}
	return describeSource(s)
}

// traceCheck records a precondition that ran: met, not met (with the
// details the skip reason gives) or failed.
func (r *eventRun) traceCheck(ctx context.Context, pc *task.Precondition, met bool, err error) {
	tp := TracePrecondition{Name: pc.Name, Result: TraceMet, Captures: []TraceCapture{}}
	switch {
	case err != nil:
		tp.Result, tp.Error = TraceError, err.Error()
	case !met:
		tp.Result, tp.Details = TraceNotMet, r.notMetDetails(ctx, pc)
	}
	for _, c := range pc.Capture {
		if v, ok := r.vars[c.Name]; ok {
			tp.Captures = append(tp.Captures, TraceCapture{Name: c.Name, Value: v})
		}
	}
	r.trace.Preconditions = append(r.trace.Preconditions, tp)
}

// traceDiscovered is the pre-discovery answer for b.
func traceDiscovered(o observation) TraceDiscovery {
	m := o.meta()
	if m == nil {
		return TraceDiscovery{}
	}
	d := TraceDiscovery{Exists: true, Name: m.GetName(), Fingerprint: o.fingerprint(), Deleting: o.deleting()}
	if ts := m.GetDeletionTimestamp(); ts != nil {
		d.DeletionTimestamp = ts.UTC().Format(time.RFC3339)
	}
	return d
}

// traceRule wraps a lifecycle rule so that its evaluation is recorded in
// tr; nil stays nil.
func traceRule(tr *TraceResource, name string, rule func() (bool, error)) func() (bool, error) {
	if rule == nil {
		return nil
	}
	return func() (bool, error) {
		v, err := rule()
		rec := TraceRule{Rule: name, Value: v}
		if err != nil {
			rec.Error = err.Error()
		}
		tr.Rules = append(tr.Rules, rec)
		return v, err
	}
}

// decisionRow names the row of the decision table that chose d, given
// what was observed; err is the decision's error.
func decisionRow(obs observation, d decision, err error) string {
	switch {
	case err != nil:
		return RowRuleFailed
	case d.op == OpDelete:
		return RowDeleteWhen
	case d.op == OpSkip:
		return RowCreateGate
	case d.op == OpCreate:
		return RowAbsent
	case d.op == OpRecreate && obs.deleting():
		return RowDeleting
	case d.op == OpRecreate:
		return RowRecreateWhen
	case d.adopted:
		return RowAdopted
	case d.op == OpUnchanged:
		return RowFingerprintEqual
	}
	return RowFingerprintDiffers
}

// traceDecision records the decision made for b.
func (b *bundle) traceDecision(d decision, err error) {
	b.trace.Decision = TraceDecision{Operation: d.op, Write: writeNames[d.write], Row: decisionRow(b.obs, d, err)}
}

// tracedObject is a target that can show its desired object for the trace.
type tracedObject interface {
	traceRendered(r *eventRun, b *bundle) (map[string]any, error)
}

// traceRendered renders the bundle when the event did not (a remembered
// fingerprint, a delete): the trace shows what would be sent. It runs
// after the outcome is recorded, so nothing the event reports changes.
func (t *maestroTarget) traceRendered(r *eventRun, b *bundle) (map[string]any, error) {
	if b.consumer == "" || b.workName == "" {
		return nil, nil // not addressed: its resolve failed
	}
	if !b.rendered {
		t.render(r, b)
	}
	return t.tree, b.renderErr
}

func (k *kubeTarget) traceRendered(_ *eventRun, _ *bundle) (map[string]any, error) {
	if k.desired == nil {
		return nil, nil
	}
	return k.desired.Object, nil
}

// traceResource finishes b's record once its outcome is reported.
func (r *eventRun) traceResource(b *bundle) {
	tr := b.trace
	tr.Name, tr.Outcome = b.res.Name, b.out
	tr.Transport = task.TransportMaestro
	if b.res.IsKubernetes() {
		tr.Transport = task.TransportKubernetes
	} else {
		tr.Consumer, tr.WorkName = b.consumer, b.workName
	}
	if tr.Decision.Row == "" {
		tr.Decision = TraceDecision{Operation: b.out.Operation, Write: writeNames[writeNone], Row: RowNotDecided}
	}
	if t, ok := b.t.(tracedObject); ok {
		obj, err := t.traceRendered(r, b)
		tr.Rendered = obj
		if err != nil {
			tr.RenderError = err.Error()
		}
	}
	tr.Decision.Fingerprint = b.fingerprint
	r.trace.Resources = append(r.trace.Resources, *tr)
}

// finishTrace completes the trace at the end of the event and hides the
// secrets' values wherever they were copied.
func (r *eventRun) finishTrace() {
	t := r.trace
	t.Generation = r.result.Generation
	t.Payloads = r.result.Payloads
	if t.Params == nil {
		t.Params = []TraceParam{}
	}
	if t.Preconditions == nil {
		t.Preconditions = []TracePrecondition{}
	}
	if t.Resources == nil {
		t.Resources = []TraceResource{}
	}
	t.scrubAll()
	r.result.Trace = t
}
