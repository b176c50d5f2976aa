package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/bundle-adapter/bundle-adapter/config"
	"github.com/bundle-adapter/bundle-adapter/kubeclient"
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
			if err := checkKubeconfig(cfg); err != nil {
				return &exitError{code: exitInvalidConfig, err: err}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "valid: %s (%d params, %d preconditions, %d bundles)\n",
				cfg.Adapter.Info.Name, len(cfg.Task.Params), len(cfg.Task.Preconditions), len(cfg.Task.Resources))
			return nil
		},
	}
	f.register(cmd, true)
	return cmd
}

// checkKubeconfig loads clients.kubernetes' kubeconfig as serve will when a
// resource uses the kubernetes transport (kubeclient.CheckConfig).
func checkKubeconfig(cfg *config.Config) error {
	if _, kube := transportsUsed(cfg.Task); !kube || cfg.Adapter.Clients.Kubernetes == nil {
		return nil
	}
	c := cfg.Adapter.Clients.Kubernetes
	if err := kubeclient.CheckConfig(kubeclient.Options{Kubeconfig: c.KubeConfigPath, Context: c.Context}); err != nil {
		return fmt.Errorf("clients.kubernetes.kube_config_path: %w", err)
	}
	return nil
}
