package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/bundle-adapter/bundle-adapter/config"
	"github.com/bundle-adapter/bundle-adapter/kubeclient/memkube"
	"github.com/bundle-adapter/bundle-adapter/task"
)

// kubeFake is the in-memory API server of the kubernetes resources: empty,
// or --kube-state, or seeded with the objects of --discovery that are not
// Maestro's (HyperFleet adapter's dry-run discovery format: objects by
// their rendered name).
func (f *dryRunFlags) kubeFake(cfg *config.Config, clock func() time.Time) (*memkube.Store, error) {
	// Any kind: a dry-run cannot know which custom resources the target
	// cluster serves.
	opts := memkube.Options{Clock: clock, AnyKind: true}
	if f.kubeState != "" && f.discovery != "" {
		return nil, fmt.Errorf("--kube-state and --discovery both name the objects that exist: give one")
	}
	if f.kubeState != "" {
		r, err := readBounded("--kube-state", f.kubeState, maxDryRunFileBytes)
		if err != nil {
			return nil, err
		}
		s, err := memkube.LoadState(r, opts)
		if err != nil {
			return nil, fmt.Errorf("--kube-state %s: %w", f.kubeState, err)
		}
		return s, nil
	}
	s := memkube.New(opts)
	if f.discovery == "" || !hasKubeResources(cfg.Task) {
		return s, nil
	}
	r, err := readBounded("--discovery", f.discovery, maxDryRunFileBytes)
	if err != nil {
		return nil, err
	}
	entries, err := discoveryEntries(r)
	if err != nil {
		return nil, fmt.Errorf("--discovery %s: %w", f.discovery, err)
	}
	var objs []*unstructured.Unstructured
	for _, e := range entries {
		if !toMaestro(e.obj, cfg.Task) {
			objs = append(objs, &unstructured.Unstructured{Object: e.obj})
		}
	}
	if err := s.Seed(objs...); err != nil {
		return nil, fmt.Errorf("--discovery %s: %w", f.discovery, err)
	}
	return s, nil
}

type discoveryEntry struct {
	name string
	obj  map[string]any
}

// discoveryEntries reads HyperFleet adapter's discovery file, a JSON object
// of objects by name, sorted by name. Each needs apiVersion and kind, as
// HyperFleet requires.
func discoveryEntries(r io.Reader) ([]discoveryEntry, error) {
	var byName map[string]map[string]any
	if err := json.NewDecoder(r).Decode(&byName); err != nil {
		return nil, fmt.Errorf("not a JSON object of objects by name: %w", err)
	}
	out := make([]discoveryEntry, 0, len(byName))
	for n, obj := range byName {
		for _, k := range []string{"apiVersion", "kind"} {
			if s, _ := obj[k].(string); s == "" {
				return nil, fmt.Errorf("%q is missing %s", n, k)
			}
		}
		out = append(out, discoveryEntry{name: n, obj: obj})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, nil
}

// toMaestro reports an entry that seeds the in-memory Maestro: a
// ManifestWork, when the task has a maestro resource (a task of kubernetes
// resources only applies even a ManifestWork to the API server).
func toMaestro(obj map[string]any, task *task.TaskConfig) bool {
	if obj["kind"] != "ManifestWork" {
		return false
	}
	for i := range task.Resources {
		if !task.Resources[i].IsKubernetes() {
			return true
		}
	}
	return false
}

// maestroDiscovery keeps the entries of the discovery file that seed the
// in-memory Maestro (see toMaestro), as a discovery file again.
func maestroDiscovery(r io.Reader, task *task.TaskConfig) (io.Reader, error) {
	entries, err := discoveryEntries(r)
	if err != nil {
		return nil, err
	}
	kept := map[string]map[string]any{}
	for _, e := range entries {
		if toMaestro(e.obj, task) {
			kept[e.name] = e.obj
		}
	}
	data, err := json.Marshal(kept)
	return bytes.NewReader(data), err
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

func hasKubeResources(task *task.TaskConfig) bool {
	for i := range task.Resources {
		if task.Resources[i].IsKubernetes() {
			return true
		}
	}
	return false
}
