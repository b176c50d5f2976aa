package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// printer writes the story: one line per happening, prefixed with the time
// since the demo started and where it happened.
type printer struct {
	w  io.Writer
	t0 time.Time
}

func newPrinter(w io.Writer) *printer { return &printer{w: w, t0: time.Now()} }

// indent lines up continuation lines with the text of an at line.
const indent = "                   "

func (p *printer) at(src, format string, args ...any) {
	fmt.Fprintf(p.w, "%7.1fs  %-9s %s\n", time.Since(p.t0).Seconds(), src, fmt.Sprintf(format, args...))
}

func (p *printer) cont(format string, args ...any) {
	fmt.Fprintf(p.w, "%s%s\n", indent, fmt.Sprintf(format, args...))
}

func (p *printer) header(format string, args ...any) {
	fmt.Fprintf(p.w, "\n== %s\n", fmt.Sprintf(format, args...))
}

func (p *printer) plain(format string, args ...any) {
	fmt.Fprintf(p.w, format+"\n", args...)
}

func (p *printer) note(format string, args ...any) { p.at("demo", format, args...) }

func (p *printer) fail(format string, args ...any) {
	fmt.Fprintf(p.w, "\nFAILED: %s\n", fmt.Sprintf(format, args...))
}

// putSignature is what makes a status PUT worth a full block: conditions
// (without messages), observed generation and bundle operations.
func putSignature(s status) string {
	var b strings.Builder
	fmt.Fprintf(&b, "g%d", s.ObservedGeneration)
	for _, c := range s.Conditions {
		fmt.Fprintf(&b, " %s=%s/%s", c.Type, c.Status, c.Reason)
	}
	for _, n := range slices.Sorted(maps.Keys(s.Data.Bundles)) {
		o := s.Data.Bundles[n]
		fmt.Fprintf(&b, " %s:%s/%s", n, o.Operation, o.State)
	}
	return b.String()
}

// printPUT shows a status PUT in full, or in one line when only messages
// and pending times changed since the previous one.
func (p *printer) printPUT(n int, s status, writes map[string]int, full bool) {
	if !full {
		p.at("status", "PUT #%d  same conditions · %s · maestro writes: %s", n, bundleSummary(s), writeSummary(writes))
		return
	}
	p.at("status", "PUT #%d  observed_generation %d · maestro writes: %s", n, s.ObservedGeneration, writeSummary(writes))
	for _, c := range s.Conditions {
		p.cont("%-10s %-6s %-20s %s", c.Type, c.Status, c.Reason, clip(c.Message, 150))
	}
	for _, name := range slices.Sorted(maps.Keys(s.Data.Bundles)) {
		o := s.Data.Bundles[name]
		line := fmt.Sprintf("bundle %-14s %-18s %-18s", name, opState(o), o.Reason)
		if o.Fingerprint != "" {
			line += " fingerprint " + short(o.Fingerprint, 12)
		}
		if o.PendingSeconds > 0 {
			line += fmt.Sprintf(" · pending %ds", o.PendingSeconds)
		}
		if o.Error != "" {
			line += " · error: " + clip(o.Error, 100)
		}
		p.cont("%s", strings.TrimRight(line, " "))
	}
}

// opState is "operation/state", or the state alone when the bundle could
// not even be read (no operation).
func opState(o bundleOutcome) string {
	if o.Operation == "" {
		return o.State
	}
	return o.Operation + "/" + o.State
}

// clip shortens s to n bytes, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func bundleSummary(s status) string {
	var parts []string
	for _, name := range slices.Sorted(maps.Keys(s.Data.Bundles)) {
		o := s.Data.Bundles[name]
		part := name + " " + opState(o)
		if o.PendingSeconds > 0 {
			part += fmt.Sprintf(" for %ds", o.PendingSeconds)
		}
		parts = append(parts, part)
	}
	return strings.Join(parts, ", ")
}

func writeSummary(w map[string]int) string {
	if w == nil {
		return "?"
	}
	if len(w) == 0 {
		return "none"
	}
	var parts []string
	for _, verb := range slices.Sorted(maps.Keys(w)) {
		parts = append(parts, fmt.Sprintf("%s %d", verb, w[verb]))
	}
	return strings.Join(parts, ", ")
}

// printChange shows one change of an object in the API server.
func (p *printer) printChange(c objChange, previousUID string) {
	b, a := c.before, c.after
	what := c.kind + " " + c.name
	switch {
	case !b.exists && a.exists:
		line := fmt.Sprintf("+ %s  uid %s  %s", what, short(a.uid, 8), a.detail)
		if previousUID != "" && previousUID != a.uid {
			line += fmt.Sprintf("  (a new object: the old uid was %s)", short(previousUID, 8))
		}
		p.at("kube", "%s", line)
	case b.exists && !a.exists:
		p.at("kube", "- %s  gone", what)
	case b.uid != a.uid:
		p.at("kube", "± %s  replaced: uid %s -> %s  %s", what, short(b.uid, 8), short(a.uid, 8), a.detail)
	case a.deleting && !b.deleting:
		p.at("kube", "~ %s  deleting%s", what, finalizerList(a.finalizers))
	default:
		var parts []string
		if a.detail != b.detail {
			parts = append(parts, a.detail)
		}
		if !slices.Equal(a.finalizers, b.finalizers) {
			parts = append(parts, "finalizers ["+strings.Join(a.finalizers, ", ")+"]")
		}
		p.at("kube", "~ %s  %s", what, strings.Join(parts, "  "))
	}
}

func finalizerList(f []string) string {
	if len(f) == 0 {
		return ""
	}
	return " (finalizers: " + strings.Join(f, ", ") + ")"
}

func short(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}
