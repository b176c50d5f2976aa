package config

import "github.com/bundle-adapter/bundle-adapter/internal/configfile"

// Transports reports which transport clients serve builds: those the task
// config's resources use and, for a task without resources, the ones the
// adapter config configures (Maestro unless it is written for the
// kubernetes transport alone, as it always was; Kubernetes when
// clients.kubernetes is set). validate checks exactly these.
func (c *Config) Transports() (maestro, kube bool) {
	for i := range c.Task.Resources {
		if c.Task.Resources[i].IsKubernetes() {
			kube = true
		} else {
			maestro = true
		}
	}
	if len(c.Task.Resources) == 0 {
		clients := c.Adapter.Clients
		kube = clients.Kubernetes != nil
		maestro = !kube || clients.Maestro.Configured()
	}
	return maestro, kube
}

// checkTransports refuses a config whose transports (see Transports) need
// Maestro when the adapter config, written for the kubernetes transport,
// has no clients.maestro (its check was skipped then; see validate).
func (c *Config) checkTransports(adapterFile string) configfile.Errors {
	if c.Adapter == nil || c.Task == nil || c.Adapter.Clients.Maestro.Configured() {
		return nil
	}
	if maestro, _ := c.Transports(); !maestro {
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
