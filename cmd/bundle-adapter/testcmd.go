package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/bundle-adapter/bundle-adapter/configtest"
)

func newTestCmd() *cobra.Command {
	var o configtest.Options
	var trace bool
	cmd := &cobra.Command{
		Use:   "test [FILES|DIRS]...",
		Short: "Run the unit tests of task configs (YAML test files; see docs/testing-configs.md)",
		Long: `test runs test files: each names an adapter config and a task config and holds
cases, each one event or a chain of steps, run through the real pipeline against
the in-memory Maestro, API server and HyperFleet API of dry-run, and checked
against the step's expectations. A folder stands for every *_test.yaml under it.
Exit codes: 0 every case passed, 1 a case failed, 2 a test file or its config
is invalid (each error names file, line and field).`,
		Args: cobra.ArbitraryArgs, // no file is configtest.Run's exit 2, as documented
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Out, o.Err = cmd.OutOrStdout(), cmd.ErrOrStderr()
			if trace {
				o.Trace = func(s configtest.TracedStep) { writeStepTrace(o.Out, s) }
			}
			if code := configtest.Run(args, o); code != configtest.ExitPass {
				return &exitError{code: code, err: errReported}
			}
			return nil
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&o.JUnit, "junit", "", "also write a JUnit XML report to this file")
	fs.BoolVar(&o.Update, "update", false, "rewrite the expectations of failing cases with what they produced")
	fs.BoolVar(&trace, "trace", false, "print what each step's event computed (dry-run's --trace), before the summary")
	return cmd
}

// errReported is a failure whose details are already printed.
const errReported = constError("")

// writeStepTrace prints the trace of one step of `bundle-adapter test
// --trace`, headed by where the step is.
func writeStepTrace(w io.Writer, s configtest.TracedStep) {
	name := ""
	if s.StepName != "" {
		name = " (" + s.StepName + ")"
	}
	res := s.Result
	fmt.Fprintf(w, "=== %s: case %q, step %d%s: event %s: %s\n", s.File, s.Case, s.Step, name, res.Event.ID, res.ExecutionStatus)
	if res.Skipped {
		fmt.Fprintf(w, "  resources skipped: %s\n", res.Trace.Scrub(res.SkipReason))
	}
	if res.Error != nil {
		fmt.Fprintf(w, "  first error: phase %s, step %s: %s\n", res.Error.Phase, res.Error.Step, res.Trace.Scrub(res.Error.Message))
	}
	writeTraceText(w, newTraceReport(res.Trace, s.Warnings))
}
