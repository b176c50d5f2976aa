package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

func newValidateCmd() *cobra.Command {
	var f configFlags
	cmd := &cobra.Command{
		Use:   "validate",
		Short: "Check the config files; exit 0 when valid, 2 with every error on stderr",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := f.load(cmd)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "valid: %s (%d params, %d preconditions, %d bundles)\n",
				cfg.Adapter.Info.Name, len(cfg.Task.Params), len(cfg.Task.Preconditions), len(cfg.Task.Resources))
			return nil
		},
	}
	f.register(cmd, true)
	return cmd
}
