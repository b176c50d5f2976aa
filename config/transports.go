package config

import "github.com/bundle-adapter/bundle-adapter/internal/configfile"

// checkTransports refuses a task config whose resources use the maestro
// transport when the adapter config, written for the kubernetes transport,
// has no clients.maestro (its check was skipped then; see validate).
func (c *Config) checkTransports(adapterFile string) configfile.Errors {
	if c.Adapter == nil || c.Task == nil || c.Adapter.Clients.Maestro.Configured() {
		return nil
	}
	for i := range c.Task.Resources {
		if !c.Task.Resources[i].IsKubernetes() {
			return configfile.Errors{{File: adapterFile, Path: "clients.maestro", Msg: "is required: " +
				configfile.IndexPath("resources", i) + " of " + c.Task.File + " uses the maestro transport"}}
		}
	}
	return nil
}
