package main

import (
	"errors"

	"github.com/spf13/cobra"
)

func newServeCmd() *cobra.Command {
	var f configFlags
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Consume reconcile events from the broker and reconcile bundles",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if _, err := f.load(cmd); err != nil {
				return err
			}
			return errors.New("serve: the broker consumers are not built yet (issue: broker consumers); use dry-run")
		},
	}
	f.register(cmd, true)
	return cmd
}
