package adapter

import "errors"

// checkTransports requires what the task's resources are delivered through:
// Maestro for a maestro resource (and for a task without resources, as
// always), Kube for a kubernetes one.
func checkTransports(o Options) error {
	if o.Task == nil || o.API == nil {
		return errors.New("adapter: Options.Task, Maestro and API are required")
	}
	kube, maestro := false, false
	for i := range o.Task.Resources {
		if o.Task.Resources[i].IsKubernetes() {
			kube = true
		} else {
			maestro = true
		}
	}
	switch {
	case o.Maestro == nil && (maestro || !kube):
		return errors.New("adapter: Options.Task, Maestro and API are required")
	case o.Kube == nil && kube:
		return errors.New("adapter: Options.Kube is required: the task config has kubernetes resources (transport.client: kubernetes)")
	}
	return nil
}
