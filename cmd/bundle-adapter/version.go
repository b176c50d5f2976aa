package main

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"
)

// version and commit are set at build time with -ldflags "-X main.version=...".
var (
	version = "dev"
	commit  = "unknown"
)

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		Run: func(cmd *cobra.Command, _ []string) {
			fmt.Fprintf(cmd.OutOrStdout(), "bundle-adapter %s (commit %s, %s)\n", version, commit, runtime.Version())
		},
	}
}
