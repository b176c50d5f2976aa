package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/hyperfleetapi/apistub"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/memmaestro"
	"github.com/bundle-adapter/bundle-adapter/tmpl"
)

// dryRunReport is the --output json contract of dry-run.
type dryRunReport struct {
	Event           reportEvent         `json:"event"`
	ExecutionStatus string              `json:"executionStatus"`
	Skipped         bool                `json:"skipped"`
	SkipReason      string              `json:"skipReason"`
	Error           *adapter.PhaseError `json:"error,omitempty"`
	// Generation is what the stale guard compared; absent when the event
	// or the API answers carry no generation of the event's resource.
	Generation   *adapter.GenerationCheck `json:"generation,omitempty"`
	Bundles      []adapter.Outcome        `json:"bundles"`
	MaestroCalls []maestroCall            `json:"maestroCalls"`
	// KubeCalls are the in-memory API server's calls; only with
	// kubernetes resources.
	KubeCalls []kubeCall     `json:"kubeCalls,omitempty"`
	APICalls  []apistub.Call `json:"apiCalls"`
	// Warnings are what serve would log at warn level for the event (an
	// optional param without a value and its default used, a payload
	// leaf sent as null), each "message key=value ...".
	Warnings []string `json:"warnings,omitempty"`
	// Trace is what the event computed, phase by phase (--trace); absent
	// without it.
	Trace *traceReport `json:"trace,omitempty"`
}

type reportEvent struct {
	ID   string `json:"id"`
	Type string `json:"type"`
}

type maestroCall struct {
	Verb     string `json:"verb"`
	Consumer string `json:"consumer"`
	Name     string `json:"name"`
}

func newReport(res *adapter.Result, mcalls []memmaestro.Call, acalls []apistub.Call) *dryRunReport {
	r := &dryRunReport{
		Event:           reportEvent{ID: res.Event.ID, Type: res.Event.Type},
		ExecutionStatus: res.ExecutionStatus, Skipped: res.Skipped, SkipReason: res.SkipReason,
		Error: res.Error, Bundles: res.Bundles,
		MaestroCalls: make([]maestroCall, len(mcalls)), APICalls: acalls,
	}
	if res.Generation.Verdict != adapter.GenerationUnchecked {
		g := res.Generation
		r.Generation = &g
	}
	for i, c := range mcalls {
		r.MaestroCalls[i] = maestroCall{Verb: c.Verb, Consumer: c.Consumer, Name: c.Name}
	}
	if r.Bundles == nil {
		r.Bundles = []adapter.Outcome{}
	}
	if r.APICalls == nil {
		r.APICalls = []apistub.Call{}
	}
	return r
}

func (r *dryRunReport) writeJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

func (r *dryRunReport) writeText(w io.Writer) error {
	fmt.Fprintf(w, "event %s (%s): %s\n", r.Event.ID, r.Event.Type, r.ExecutionStatus)
	if r.Skipped {
		fmt.Fprintf(w, "  resources skipped: %s\n", r.SkipReason)
	}
	if g := r.Generation; g != nil {
		fmt.Fprintf(w, "  generation: event %d, API %d (%s): %s\n", g.Event, g.API, g.APIFrom, g.Verdict)
	}
	if r.Error != nil {
		fmt.Fprintf(w, "  first error: phase %s, step %s: %s\n", r.Error.Phase, r.Error.Step, r.Error.Message)
		if c := tmpl.Caret(r.Error, "    "); c != "" {
			fmt.Fprintln(w, c)
		}
	}
	fmt.Fprintln(w, "bundles:")
	for _, b := range r.Bundles {
		fmt.Fprintf(w, "  %-20s %s/%s  %s  consumer=%s work=%s pending=%ds\n", b.Name, b.Operation, b.State, b.Reason, b.Consumer, b.WorkName, b.PendingSeconds)
		if b.Error != "" {
			fmt.Fprintf(w, "  %-20s error: %s\n", "", b.Error)
		}
	}
	fmt.Fprintln(w, "maestro calls:")
	for _, c := range r.MaestroCalls {
		fmt.Fprintf(w, "  %-6s %s/%s\n", c.Verb, c.Consumer, c.Name)
	}
	if len(r.KubeCalls) > 0 {
		fmt.Fprintln(w, "kubernetes calls:")
		for _, c := range r.KubeCalls {
			fmt.Fprintf(w, "  %-6s %s %s %s%s\n", c.Verb, c.APIVersion, c.Kind, objectPath(c.Namespace, c.Name), c.detail())
		}
	}
	fmt.Fprintln(w, "api calls:")
	for _, c := range r.APICalls {
		body := ""
		var exact bytes.Buffer
		switch {
		case json.Compact(&exact, c.RawBody()) == nil: // numbers as sent
			body = " " + exact.String()
		case c.Body != nil:
			b, _ := json.Marshal(c.Body)
			body = " " + string(b)
		}
		fmt.Fprintf(w, "  %s %s%s\n", c.Method, c.Path, body)
	}
	if len(r.Warnings) > 0 && r.Trace == nil {
		fmt.Fprintln(w, "warnings:")
		for _, m := range r.Warnings {
			fmt.Fprintf(w, "  %s\n", m)
		}
	}
	writeTraceText(w, r.Trace)
	return nil
}
