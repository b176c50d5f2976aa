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
	var task bool
	dump := &cobra.Command{
		Use:   use,
		Short: "Print the merged adapter and broker config (env and flags applied, defaults shown, secrets redacted)",
		Long: `Print the merged adapter and broker config: files, env and flags applied,
every key with the value in effect (a default is commented "# default", a
zero that means something says what), secrets redacted. With --task, print
the task config as loaded instead: this adapter's spelling (HyperFleet's
camelCase and envelope keys mapped), the defaults the loader filled in, refs
as written.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := f.load(cmd)
			if err != nil {
				return err
			}
			if task {
				return cfg.DumpTask(cmd.OutOrStdout())
			}
			return cfg.Dump(cmd.OutOrStdout())
		},
	}
	f.register(dump, true)
	dump.Flags().BoolVar(&task, "task", false, "print the task config as loaded instead of the adapter and broker config")
	return dump
}
