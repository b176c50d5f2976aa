package main

import (
	"github.com/spf13/cobra"
)

func newConfigCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "config", Short: "Inspect configuration"}
	var f configFlags
	dump := &cobra.Command{
		Use:   "dump",
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
	cmd.AddCommand(dump)
	return cmd
}
