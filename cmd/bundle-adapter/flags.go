package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/config"
	"github.com/bundle-adapter/bundle-adapter/task"
)

// configFlags are the file flags shared by serve, validate, config dump and
// dry-run. Each defaults to its environment variable.
type configFlags struct {
	adapter, task, broker string
	refRoots              []string
}

func (f *configFlags) register(cmd *cobra.Command, withBroker bool) {
	fs := cmd.Flags()
	fs.StringVarP(&f.adapter, "config", "c", firstEnv("ADAPTER_CONFIG_PATH", "HYPERFLEET_ADAPTER_CONFIG"),
		"adapter config file (env ADAPTER_CONFIG_PATH or HYPERFLEET_ADAPTER_CONFIG)")
	fs.StringVarP(&f.task, "task-config", "t", firstEnv("ADAPTER_TASK_CONFIG_PATH", "HYPERFLEET_TASK_CONFIG"),
		"task config file (env ADAPTER_TASK_CONFIG_PATH or HYPERFLEET_TASK_CONFIG)")
	fs.StringArrayVar(&f.refRoots, "ref-root", splitList(os.Getenv("ADAPTER_REF_ROOT")),
		"FROM=TO: read absolute manifest refs under FROM (the folder the chart mounts, /etc/adapter) from the local TO; "+
			"repeatable (env ADAPTER_REF_ROOT, comma-separated). Without it an absolute ref outside the task config's folder "+
			"is read from that folder by its base name")
	if withBroker {
		fs.StringVar(&f.broker, "broker-config", os.Getenv("BROKER_CONFIG_FILE"), "broker config file (env BROKER_CONFIG_FILE)")
	}
	config.RegisterAdapterFlags(fs)
}

// firstEnv is the value of the first of the variables that is set and not
// empty: ours first, then HyperFleet adapter's spelling.
func firstEnv(names ...string) string {
	for _, n := range names {
		if v := os.Getenv(n); v != "" {
			return v
		}
	}
	return ""
}

func (f *configFlags) files() (config.Files, error) {
	files := config.Files{Adapter: f.adapter, Task: f.task, Broker: f.broker, CheckWork: adapter.CheckWork}
	for _, s := range f.refRoots {
		root, err := task.ParseRefRoot(s)
		if err != nil {
			return files, fmt.Errorf("--ref-root: %w", err)
		}
		files.RefRoots = append(files.RefRoots, root)
	}
	return files, nil
}

// splitList splits a comma-separated environment value; empty is nil.
func splitList(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// load loads the files; a missing flag or an invalid file is exit code 2.
func (f *configFlags) load(cmd *cobra.Command) (*config.Config, error) {
	if f.adapter == "" || f.task == "" {
		return nil, &exitError{code: exitInvalidConfig, err: errMissingFiles}
	}
	files, err := f.files()
	if err != nil {
		return nil, &exitError{code: exitInvalidConfig, err: err}
	}
	cfg, err := config.Load(files, cmd.Flags())
	if err != nil {
		return nil, &exitError{code: exitInvalidConfig, err: err}
	}
	for _, w := range cfg.Warnings() {
		fmt.Fprintf(cmd.ErrOrStderr(), "warning: %s\n", w.Error())
	}
	return cfg, nil
}

type constError string

func (e constError) Error() string { return string(e) }

const errMissingFiles = constError("--config and --task-config are required (or ADAPTER_CONFIG_PATH and ADAPTER_TASK_CONFIG_PATH, or HYPERFLEET_ADAPTER_CONFIG and HYPERFLEET_TASK_CONFIG)")
