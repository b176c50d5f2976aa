package main

import (
	"errors"
	"fmt"
	"log/slog"

	"github.com/spf13/cobra"

	"github.com/bundle-adapter/bundle-adapter/config"
	"github.com/bundle-adapter/bundle-adapter/memrun"
)

func newValidateCmd() *cobra.Command {
	var f configFlags
	var shadow, strict bool
	var forAdapter string
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
only what it connects to can still stop it.

With --strict, any warning (of the config files or of the start-up
checks) makes validate exit 2, so CI can refuse what would only be
logged: a param reading a name nothing declares, a payload leaf that can
fail without a default, a field the ManifestWork type drops.

With --for hyperfleet-adapter, it also lists what in the task config
hyperfleet-adapter would refuse or read differently (keys its loader does
not know, such as lifecycle.recreate; template functions it does not have;
CEL reads of bundles), each with its file, line and path, and exits 2 when
there is any: whether rolling back to it keeps this config.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := f.load(cmd)
			if err != nil {
				return err
			}
			warns := &memrun.Warnings{} // the start-up checks' warnings, printed as the files' are
			_, err = planServe(cfg, shadow, slog.New(warns))
			for _, w := range warns.List() {
				fmt.Fprintf(cmd.ErrOrStderr(), "warning: %s\n", w)
			}
			if err != nil {
				return &exitError{code: exitInvalidConfig, err: err}
			}
			if n := len(cfg.Warnings()) + len(warns.List()); strict && n > 0 {
				return &exitError{code: exitInvalidConfig, err: fmt.Errorf("%d warning(s) and --strict: %w", n, errStrict)}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "valid: %s (%d params, %d preconditions, %d bundles)\n",
				cfg.Adapter.Info.Name, len(cfg.Task.Params), len(cfg.Task.Preconditions), len(cfg.Task.Resources))
			if forAdapter != "" {
				return checkFor(cmd, forAdapter, cfg.Task.File)
			}
			return nil
		},
	}
	f.register(cmd, true)
	cmd.Flags().BoolVar(&shadow, "shadow", false, "check the config as serve --shadow starts it")
	cmd.Flags().BoolVar(&strict, "strict", false, "exit 2 on any warning, as on an error")
	cmd.Flags().StringVar(&forAdapter, "for", "", "also check the task config loads and reads the same on another adapter: hyperfleet-adapter")
	return cmd
}

var errStrict = errors.New("validate --strict refuses warnings")

// checkFor reports what in the task config file the adapter named by for
// would refuse or read differently (config.AnchorIncompatible); exit 2 when
// anything.
func checkFor(cmd *cobra.Command, forAdapter, taskFile string) error {
	if forAdapter != "hyperfleet-adapter" {
		return &exitError{code: exitInvalidConfig, err: fmt.Errorf("--for %q: the only adapter known is hyperfleet-adapter", forAdapter)}
	}
	errs, err := config.AnchorIncompatible(taskFile)
	if err != nil {
		return &exitError{code: exitInvalidConfig, err: err}
	}
	if len(errs) == 0 {
		fmt.Fprintln(cmd.OutOrStdout(), "hyperfleet-adapter: the task config loads and reads the same there")
		return nil
	}
	w := cmd.ErrOrStderr()
	fmt.Fprintf(w, "hyperfleet-adapter would refuse or read differently (%d):\n", len(errs))
	for _, e := range errs {
		fmt.Fprintln(w, "  "+e.Error())
	}
	return &exitError{code: exitInvalidConfig, err: fmt.Errorf("the task config does not carry over to hyperfleet-adapter: %w", errReported)}
}
