package config

import (
	"errors"
	"path/filepath"

	"github.com/bundle-adapter/bundle-adapter/internal/configfile"
	"github.com/bundle-adapter/bundle-adapter/task"
	"github.com/spf13/pflag"
)

// Files names the three config files of a deployment. Broker may be empty
// (validate and dry-run do not need it).
type Files struct {
	Adapter string
	Task    string
	Broker  string
	// RefRoots map absolute manifest refs of the task config onto local
	// folders (--ref-root); see LoadTaskConfigWith.
	RefRoots []task.RefRoot
	// CheckWork, when set, reports the fields of a ManifestWork rendered
	// with sample values that Maestro's ManifestWork type does not have:
	// each loads with a warning (see task.WorkChecker).
	CheckWork task.WorkChecker
}

// TaskOptions are what a task config load needs besides the file.
type TaskOptions struct {
	RefRoots  []task.RefRoot
	CheckWork task.WorkChecker
}

// Config is everything one deployment loaded, validated and compiled.
type Config struct {
	Adapter *AdapterConfig
	Task    *task.TaskConfig
	Broker  *BrokerConfig // nil when Files.Broker is empty
}

// Warnings lists what loaded but means less here than in HyperFleet's
// adapter: keys accepted so existing files load unchanged, and ignored. Each
// names file, line and YAML path like an error; none stops a load.
func (c *Config) Warnings() configfile.Errors {
	var out configfile.Errors
	if c.Adapter != nil {
		out = append(out, c.Adapter.Warnings...)
	}
	if c.Broker != nil {
		out = append(out, c.Broker.Warnings...)
	}
	if c.Task != nil {
		out = append(out, c.Task.Warnings...)
	}
	return out
}

// Load reads, validates and compiles the files. Environment variables and
// then the flags in fs (may be nil) override adapter and broker config
// values. On failure the error is an Errors holding every problem of every
// file, each naming file, YAML path and line.
func Load(files Files, fs *pflag.FlagSet) (*Config, error) {
	var all configfile.Errors
	cfg := &Config{}
	var err error
	if cfg.Adapter, err = LoadAdapterConfig(files.Adapter, fs); err != nil {
		all = appendErr(all, files.Adapter, err)
	}
	sameLegacyFile := isLegacyError(err) && filepath.Clean(files.Adapter) == filepath.Clean(files.Task)
	if sameLegacyFile {
		// One error for one file: the task half of it says the same.
	} else if cfg.Task, err = LoadTaskConfigWith(files.Task, TaskOptions{RefRoots: files.RefRoots, CheckWork: files.CheckWork}); err != nil {
		all = appendErr(all, files.Task, err)
	}
	if files.Broker != "" {
		if cfg.Broker, err = LoadBrokerConfig(files.Broker); err != nil {
			all = appendErr(all, files.Broker, err)
		}
	}
	if len(all) == 0 {
		all = cfg.checkAPIOrigins(files.Task)
		all = append(all, cfg.checkTransports(files.Adapter)...)
	}
	if len(all) > 0 {
		return nil, all
	}
	return cfg, nil
}

func appendErr(all configfile.Errors, file string, err error) configfile.Errors {
	var es configfile.Errors
	if errors.As(err, &es) {
		return append(all, es...)
	}
	return append(all, configfile.FieldError{File: file, Msg: err.Error()})
}

// LoadAdapterConfig loads the adapter config, applying defaults, the file,
// environment overrides (EnvNames) and flags, in that order of precedence
// from lowest to highest.
func LoadAdapterConfig(path string, fs *pflag.FlagSet) (*AdapterConfig, error) {
	cfg := defaultAdapterConfig()
	l := configfile.NewErrorList(path)
	root, err := configfile.ReadYAML(path, l)
	if err != nil {
		return nil, err
	}
	d := &configfile.Decoder{Errs: l}
	var meta task.TaskMetadata
	body := unwrap(d, root, &meta)
	if legacyAdapterConfig(l, body) {
		return nil, l.Result()
	}
	d.Decode(body, configfile.ReflectValue(&cfg), "")
	if cfg.Info.Name == "" {
		cfg.Info.Name = meta.Name
	}
	if enveloped(root) {
		cfg.Info.Metadata = &meta
	}
	sources := applyOverrides(l, &cfg, adapterEnvNames, fs)
	checkBounds(l, &cfg, AdapterBounds, sources)
	cfg.validate(l)
	cfg.Warnings = l.Warns.Sorted()
	return &cfg, l.Result()
}

// LoadBrokerConfig loads broker.yaml with defaults and environment overrides.
// Keys of hyperfleet-broker that mean less here load with a warning
// (BrokerConfig.Warnings).
func LoadBrokerConfig(path string) (*BrokerConfig, error) {
	cfg := defaultBrokerConfig()
	l := configfile.NewErrorList(path)
	root, err := configfile.ReadYAML(path, l)
	if err != nil {
		return nil, err
	}
	d := &configfile.Decoder{Errs: l}
	d.Decode(root, configfile.ReflectValue(&cfg), "")
	cfg.applyNested(l)
	sources := applyOverrides(l, &cfg, brokerEnvNames, nil)
	checkBounds(l, &cfg, BrokerBounds, sources)
	cfg.validate(l)
	cfg.Warnings = l.Warns.Sorted()
	return &cfg, l.Result()
}

// LoadTaskConfig loads, validates and compiles a task config. Manifest refs
// are read relative to the file's folder.
func LoadTaskConfig(path string) (*task.TaskConfig, error) {
	return LoadTaskConfigWith(path, TaskOptions{})
}

// LoadTaskConfigWith is LoadTaskConfig with absolute manifest refs mapped by
// o.RefRoots: an absolute ref is read from the task config's folder when it
// is in it, else through the first root that holds it, else by its base
// name from the task config's folder (see refs); never from anywhere else.
// o.CheckWork, when set, turns the ManifestWork fields Maestro would drop
// into load warnings.
func LoadTaskConfigWith(path string, o TaskOptions) (*task.TaskConfig, error) {
	cfg := &task.TaskConfig{File: path, RefRoots: o.RefRoots, CheckWork: o.CheckWork}
	l := configfile.NewErrorList(path)
	root, err := configfile.ReadYAML(path, l)
	if err != nil {
		return nil, err
	}
	d := &configfile.Decoder{Errs: l}
	body := unwrap(d, root, &cfg.Metadata)
	if legacyTaskConfig(l, body) {
		return nil, l.Result()
	}
	d.Decode(body, configfile.ReflectValue(cfg), "")
	if cfg.IsEmpty() {
		l.Add("", "has no params, resources or post: a task config must do something")
	}
	task.CompileTask(l, cfg)
	cfg.Warnings = l.Warns.Sorted()
	return cfg, l.Result()
}
