package configtest

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/bundle-adapter/bundle-adapter/internal/configfile"
)

// summarize prints every file's cases, a line of totals, and returns the
// exit code.
func summarize(o Options, reports []*fileReport) int {
	var pass, fail, updated, invalid int
	for _, fr := range reports {
		if fr.err != nil {
			invalid++
			printInvalid(o.Err, fr.err)
			if len(fr.cases) == 0 {
				continue
			}
		}
		fmt.Fprintln(o.Out, fr.path)
		for _, c := range fr.cases {
			switch {
			case c.invalid() != nil:
				invalid++
				fmt.Fprintf(o.Out, "  INVALID %s\n", c.name)
				printInvalid(o.Err, c.invalid())
			case c.updated:
				updated++
				fmt.Fprintf(o.Out, "  UPDATED %s (%s)\n", c.name, steps(len(c.steps)))
				printMismatches(o.Out, fr.path, c)
			case c.failed():
				fail++
				fmt.Fprintf(o.Out, "  FAIL    %s (%s)\n", c.name, steps(len(c.steps)))
				printMismatches(o.Out, fr.path, c)
			default:
				pass++
				fmt.Fprintf(o.Out, "  ok      %s (%s)\n", c.name, steps(len(c.steps)))
			}
			printWarnings(o.Out, c)
		}
	}
	fmt.Fprintf(o.Out, "%d passed, %d failed, %d updated, %d invalid\n", pass, fail, updated, invalid)
	switch {
	case invalid > 0:
		return ExitInvalid
	case fail > 0:
		return ExitFail
	}
	return ExitPass
}

// printWarnings prints what serve would have logged at warn level for each
// step's event (an optional param without a value, a payload leaf sent as
// null), whether the case passed or not.
func printWarnings(w io.Writer, c *caseReport) {
	for i, s := range c.steps {
		for _, m := range s.warnings {
			fmt.Fprintf(w, "          warning: step %d: %s\n", i+1, m)
		}
	}
}

func steps(n int) string {
	if n == 1 {
		return "1 step"
	}
	return fmt.Sprintf("%d steps", n)
}

func printInvalid(w io.Writer, err error) {
	var es configfile.Errors
	if errors.As(err, &es) {
		for _, e := range es {
			fmt.Fprintln(w, "invalid: "+e.Error())
		}
		return
	}
	fmt.Fprintln(w, "invalid:", err)
}

// printMismatches prints, for each failing step, each expectation not met:
// where it is written (file:line) and what, then the expected value (-)
// against the actual one (+).
func printMismatches(w io.Writer, file string, c *caseReport) {
	for i, s := range c.steps {
		if len(s.mismatches) == 0 {
			continue
		}
		name := ""
		if s.step.Name != "" {
			name = fmt.Sprintf(" %q", s.step.Name)
		}
		fmt.Fprintf(w, "        step %d%s (%s:%d):\n", i+1, name, file, s.step.line)
		for _, m := range s.mismatches {
			fmt.Fprint(w, diffText(file, m))
		}
		for _, l := range s.summary {
			fmt.Fprintf(w, "          %s\n", l)
		}
	}
}

// diffText renders one mismatch.
func diffText(file string, m mismatch) string {
	var b strings.Builder
	fmt.Fprintf(&b, "          %s:%d: %s", file, m.line, m.what)
	if m.note != "" {
		fmt.Fprintf(&b, ": %s", m.note)
	}
	b.WriteString("\n")
	exp := valueText(m.expected, true)
	if m.regexp {
		exp = "matches /" + fmt.Sprint(m.expected) + "/"
	}
	act := valueText(m.actual, m.found)
	writeLines(&b, "- ", exp)
	writeLines(&b, "+ ", act)
	return b.String()
}

func writeLines(b *strings.Builder, prefix, text string) {
	for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		b.WriteString("            " + prefix + l + "\n")
	}
}

// valueText writes a value as YAML; "(absent)" when it does not exist.
func valueText(v any, found bool) string {
	if !found {
		return "(absent)"
	}
	var b strings.Builder
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return b.String()
}
