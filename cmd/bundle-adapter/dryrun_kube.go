package main

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/bundle-adapter/bundle-adapter/config"
	"github.com/bundle-adapter/bundle-adapter/kubeclient/memkube"
	"github.com/bundle-adapter/bundle-adapter/memrun"
)

// kubeFake is the in-memory API server of the kubernetes resources: empty,
// or --kube-state, or seeded with the objects of --discovery that are not
// Maestro's (HyperFleet adapter's dry-run discovery format: objects by
// their rendered name).
func (f *dryRunFlags) kubeFake(cfg *config.Config, clock func() time.Time) (*memkube.Store, error) {
	opts := memrun.KubeOptions(clock)
	if f.kubeState != "" && f.discovery != "" {
		return nil, fmt.Errorf("--kube-state and --discovery both name the objects that exist: give one")
	}
	if f.kubeState != "" {
		r, err := readBounded("--kube-state", f.kubeState, maxDryRunFileBytes)
		if err != nil {
			return nil, err
		}
		s, err := memrun.KubeState(r, opts)
		if err != nil {
			return nil, fmt.Errorf("--kube-state %s: %w", f.kubeState, err)
		}
		return s, nil
	}
	if f.discovery == "" || !memrun.HasKubeResources(cfg.Task) {
		return memkube.New(opts), nil
	}
	r, err := readBounded("--discovery", f.discovery, maxDryRunFileBytes)
	if err != nil {
		return nil, err
	}
	s, err := memrun.KubeDiscovery(r, cfg.Task, opts)
	if err != nil {
		return nil, fmt.Errorf("--discovery %s: %w", f.discovery, err)
	}
	return s, nil
}

func (f *dryRunFlags) saveKubeState(s *memkube.Store) error {
	if f.kubeStateOut == "" {
		return nil
	}
	out, err := os.Create(f.kubeStateOut)
	if err != nil {
		return fmt.Errorf("--kube-state-out: %w", err)
	}
	if err := s.SaveState(out); err != nil {
		out.Close()
		return fmt.Errorf("--kube-state-out: %w", err)
	}
	return out.Close()
}

// kubeCall is one call of the in-memory API server in the report.
type kubeCall struct {
	Verb        string            `json:"verb"`
	APIVersion  string            `json:"apiVersion"`
	Kind        string            `json:"kind"`
	Namespace   string            `json:"namespace,omitempty"`
	Name        string            `json:"name,omitempty"`
	Labels      map[string]string `json:"labels,omitempty"`
	Propagation string            `json:"propagation,omitempty"`
}

func (r *dryRunReport) addKubeCalls(calls []memkube.Call) {
	for _, c := range calls {
		r.KubeCalls = append(r.KubeCalls, kubeCall{Verb: c.Verb, APIVersion: c.Ref.APIVersion, Kind: c.Ref.Kind,
			Namespace: c.Ref.Namespace, Name: c.Ref.Name, Labels: c.Labels, Propagation: c.Propagation})
	}
}

func (c kubeCall) detail() string {
	var parts []string
	if len(c.Labels) > 0 {
		keys := make([]string, 0, len(c.Labels))
		for k := range c.Labels {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for i, k := range keys {
			keys[i] = k + "=" + c.Labels[k]
		}
		parts = append(parts, "labels "+strings.Join(keys, ","))
	}
	if c.Propagation != "" {
		parts = append(parts, "propagation "+c.Propagation)
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, "; ") + ")"
}

func objectPath(namespace, name string) string {
	switch {
	case namespace == "":
		return name
	case name == "":
		return namespace + "/*"
	}
	return namespace + "/" + name
}
