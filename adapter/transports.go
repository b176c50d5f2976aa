package adapter

import (
	"errors"
	"fmt"
	"os"

	"github.com/bundle-adapter/bundle-adapter/task"
)

// checkTransports requires what the task's resources are delivered through:
// Maestro for a maestro resource, Kube for a kubernetes one. A task without
// resources needs neither.
func checkTransports(o Options) error {
	if o.Task == nil || o.API == nil {
		return errors.New("adapter: Options.Task and API are required")
	}
	return CheckTask(o.Task, o.Maestro != nil, o.Kube != nil, o.LookupEnv)
}

// CheckTask reports what New refuses about a task config, given whether a
// Maestro and a Kube client are passed and the environment (nil:
// os.LookupEnv): a resource whose transport has no client, or an env.X the
// task config reads as required that is not set. validate and serve run it
// before anything connects.
func CheckTask(t *task.TaskConfig, maestro, kube bool, lookupEnv func(string) (string, bool)) error {
	useMaestro, useKube := false, false
	for i := range t.Resources {
		if t.Resources[i].IsKubernetes() {
			useKube = true
		} else {
			useMaestro = true
		}
	}
	switch {
	case useMaestro && !maestro:
		return errors.New("adapter: Options.Maestro is required: the task config has maestro resources")
	case useKube && !kube:
		return errors.New("adapter: Options.Kube is required: the task config has kubernetes resources (transport.client: kubernetes)")
	}
	return checkEnv(t, lookupEnv)
}

// checkEnv refuses a task config that reads a required environment
// variable that is not set: every event would fail.
func checkEnv(t *task.TaskConfig, lookupEnv func(string) (string, bool)) error {
	if t.CEL == nil {
		return nil
	}
	if lookupEnv == nil {
		lookupEnv = os.LookupEnv
	}
	for _, v := range t.CEL.EnvVars() {
		if _, ok := lookupEnv(v.Name); !ok && v.Required {
			return fmt.Errorf("adapter: %s (line %d) reads env.%s, but the environment variable %s is not set: every event would fail", v.Path, v.Line, v.Name, v.Name)
		}
	}
	return nil
}
