package main

import (
	"fmt"
	"log/slog"

	"github.com/spf13/cobra"
)

func newValidateCmd() *cobra.Command {
	var f configFlags
	var shadow bool
	cmd := &cobra.Command{
		Use:   "validate",
		Short: "Check the config files; exit 0 when valid, 2 with every error on stderr",
		Long: `validate loads the files as serve does (environment variables and flags
included) and runs serve's start-up checks short of connecting (planServe):
the transport clients' options and TLS files, a kubeconfig file, the
environment the task config reads, and with --broker-config the consumer's
queue, exchange or subscription names, with the names a shadow replica
(serve --shadow) would derive from them. With --shadow, it checks the config
as serve --shadow starts it. A config validate passes is one serve starts;
only what it connects to can still stop it.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := f.load(cmd)
			if err != nil {
				return err
			}
			if _, err := planServe(cfg, shadow, slog.New(slog.DiscardHandler)); err != nil {
				return &exitError{code: exitInvalidConfig, err: err}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "valid: %s (%d params, %d preconditions, %d bundles)\n",
				cfg.Adapter.Info.Name, len(cfg.Task.Params), len(cfg.Task.Preconditions), len(cfg.Task.Resources))
			return nil
		},
	}
	f.register(cmd, true)
	cmd.Flags().BoolVar(&shadow, "shadow", false, "check the config as serve --shadow starts it")
	return cmd
}
