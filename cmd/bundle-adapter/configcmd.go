package main

import (
	"github.com/spf13/cobra"
)

func newConfigCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "config", Short: "Inspect configuration"}
	cmd.AddCommand(newDumpCmd("dump"))
	return cmd
}

// newConfigDumpCmd is `config-dump`, HyperFleet adapter's name for
// `config dump`: the same command.
func newConfigDumpCmd() *cobra.Command {
	c := newDumpCmd("config-dump")
	c.Short += " (the same as config dump)"
	return c
}

func newDumpCmd(use string) *cobra.Command {
	var f configFlags
	dump := &cobra.Command{
		Use:   use,
		Short: "Print the merged adapter and broker config (env and flags applied, secrets redacted)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := f.load(cmd)
			if err != nil {
				return err
			}
			return cfg.Dump(cmd.OutOrStdout())
		},
	}
	f.register(dump, true)
	return dump
}
