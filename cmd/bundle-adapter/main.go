// Command bundle-adapter turns HyperFleet reconcile events into Open Cluster
// Management ManifestWork bundles delivered through Maestro, and reports
// status back to the HyperFleet API.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/bundle-adapter/bundle-adapter/internal/configfile"
)

// Exit codes shared by the subcommands.
const (
	exitOK            = 0
	exitFailure       = 1
	exitInvalidConfig = 2
	exitInvalidEvent  = 3
)

// exitError carries an exit code out of a cobra command.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	root := newRootCmd(stdout, stderr)
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return exitOK
	}
	if !errors.Is(err, errReported) {
		printError(stderr, err)
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return exitFailure
}

// printError prints config errors one per line, each naming file, line and
// field (and column, with the line and a caret under it on the next two
// lines, when known), and any other error on one line.
func printError(w io.Writer, err error) {
	var ce configfile.Errors
	if errors.As(err, &ce) {
		fmt.Fprintf(w, "invalid configuration (%d problems):\n", len(ce))
		for _, e := range ce {
			fmt.Fprintln(w, "  "+e.Error())
			if c := configfile.Caret(e.Source, e.Col, "    "); c != "" {
				fmt.Fprintln(w, c)
			}
		}
		return
	}
	fmt.Fprintln(w, "error:", err)
}

func newRootCmd(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:           "bundle-adapter",
		Short:         "Reconcile HyperFleet events into Maestro ManifestWork bundles",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.AddCommand(newServeCmd(), newValidateCmd(), newConfigCmd(), newConfigDumpCmd(), newVersionCmd(), newDryRunCmd(), newTestCmd())
	return root
}
