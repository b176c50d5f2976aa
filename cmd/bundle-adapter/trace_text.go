package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// traceReport is the --trace part of dry-run's --output json: the event's
// adapter.EventTrace (its keys flattened here) and its warnings, secrets
// replaced. The keys are documented in docs/configuration.md ("Trace").
type traceReport struct {
	*adapter.EventTrace
	Warnings []string `json:"warnings"`
}

func newTraceReport(t *adapter.EventTrace, warnings []string) *traceReport {
	if t == nil {
		return nil
	}
	out := &traceReport{EventTrace: t, Warnings: []string{}}
	for _, w := range warnings {
		out.Warnings = append(out.Warnings, t.Scrub(w))
	}
	return out
}

// writeTraceText prints a trace for a person: one block per phase, each
// param on one line, each resource's discovery, rules, decision and
// outcome, then its rendered object and the status body as YAML.
func writeTraceText(w io.Writer, t *traceReport) {
	if t == nil {
		return
	}
	fmt.Fprintln(w, "trace:")
	fmt.Fprintln(w, "  params:")
	width := 0
	for _, p := range t.Params {
		width = max(width, len(p.Name))
	}
	for _, p := range t.Params {
		value := compactJSON(p.Value)
		if p.Redacted && p.Value != nil {
			value = "REDACTED"
		}
		var notes []string
		if p.Defaulted {
			notes = append(notes, "default")
		}
		if p.Redacted {
			notes = append(notes, "secret")
		}
		if !p.Kept && p.Error == "" {
			notes = append(notes, "no value: the earlier one stays")
		}
		note := ""
		if len(notes) > 0 {
			note = " (" + strings.Join(notes, ", ") + ")"
		}
		fmt.Fprintf(w, "    %-*s = %s%s  <- %s\n", width, p.Name, value, note, p.Source)
		if p.Error != "" {
			fmt.Fprintf(w, "    %-*s   error: %s\n", width, "", p.Error)
		}
	}
	fmt.Fprintln(w, "  preconditions:"+none(len(t.Preconditions)))
	for _, pc := range t.Preconditions {
		line := pc.Result
		if pc.Details != "" {
			line += ": " + pc.Details
		}
		if pc.Error != "" {
			line += ": " + pc.Error
		}
		fmt.Fprintf(w, "    %s: %s\n", pc.Name, line)
		for _, c := range pc.Captures {
			fmt.Fprintf(w, "      captured %s = %s\n", c.Name, compactJSON(c.Value))
		}
	}
	if g := t.Generation; g.Verdict != adapter.GenerationUnchecked {
		fmt.Fprintf(w, "  generation: event %d, API %d (%s): %s\n", g.Event, g.API, g.APIFrom, g.Verdict)
	} else {
		fmt.Fprintln(w, "  generation: not checked (the event or the API answers carry none)")
	}
	fmt.Fprintln(w, "  resources:"+none(len(t.Resources)))
	for _, r := range t.Resources {
		writeTraceResource(w, r)
	}
	if len(t.Payloads) > 0 {
		fmt.Fprintln(w, "  payloads:")
		names := make([]string, 0, len(t.Payloads))
		for n := range t.Payloads {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			fmt.Fprintf(w, "    %s:\n", n)
			writeYAML(w, "      ", t.Payloads[n])
		}
	}
	if len(t.Warnings) > 0 {
		fmt.Fprintln(w, "  warnings:")
		for _, m := range t.Warnings {
			fmt.Fprintf(w, "    %s\n", m)
		}
	}
}

func writeTraceResource(w io.Writer, r adapter.TraceResource) {
	where := r.Transport
	if r.WorkName != "" {
		where += ", consumer " + r.Consumer + ", work " + r.WorkName
	}
	fmt.Fprintf(w, "    %s (%s)\n", r.Name, where)
	d := r.Discovered
	switch {
	case !d.Exists:
		fmt.Fprintln(w, "      discovered: absent")
	default:
		fp := d.Fingerprint
		if fp == "" {
			fp = "none"
		}
		deleting := "not deleting"
		if d.Deleting {
			deleting = "deleting since " + d.DeletionTimestamp
		}
		fmt.Fprintf(w, "      discovered: %s, fingerprint %s, %s\n", d.Name, fp, deleting)
	}
	for _, rule := range r.Rules {
		if rule.Error != "" {
			fmt.Fprintf(w, "      rule %s: error: %s\n", rule.Rule, rule.Error)
			continue
		}
		fmt.Fprintf(w, "      rule %s = %v\n", rule.Rule, rule.Value)
	}
	dec := r.Decision
	fmt.Fprintf(w, "      decision: %s (row %s), write %s", dec.Operation, dec.Row, dec.Write)
	if dec.Fingerprint != "" {
		fmt.Fprintf(w, ", desired fingerprint %s", dec.Fingerprint)
	}
	fmt.Fprintln(w)
	o := r.Outcome
	fmt.Fprintf(w, "      outcome: %s/%s %s", o.Operation, o.State, o.Reason)
	if o.PendingSeconds > 0 {
		fmt.Fprintf(w, " for %ds", o.PendingSeconds)
	}
	if o.Error != "" {
		fmt.Fprintf(w, ": %s", o.Error)
	}
	fmt.Fprintln(w)
	switch {
	case r.RenderError != "":
		fmt.Fprintf(w, "      rendered: error: %s\n", r.RenderError)
	case r.Rendered != nil:
		fmt.Fprintln(w, "      rendered:")
		writeYAML(w, "        ", r.Rendered)
	}
}

// none marks an empty section of the trace: nothing of it ran.
func none(n int) string {
	if n == 0 {
		return " none"
	}
	return ""
}

// compactJSON is v on one line, as JSON.
func compactJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	return string(b)
}

// writeYAML writes v as YAML, each line indented.
func writeYAML(w io.Writer, indent string, v any) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(v); err != nil {
		fmt.Fprintf(w, "%s%s\n", indent, compactJSON(v))
		return
	}
	_ = enc.Close()
	for _, line := range strings.Split(strings.TrimRight(buf.String(), "\n"), "\n") {
		fmt.Fprintf(w, "%s%s\n", indent, line)
	}
}
