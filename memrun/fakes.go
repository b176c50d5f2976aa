package memrun

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/bundle-adapter/bundle-adapter/config"
	"github.com/bundle-adapter/bundle-adapter/hyperfleetapi/apistub"
	"github.com/bundle-adapter/bundle-adapter/internal/secret"
	"github.com/bundle-adapter/bundle-adapter/kubeclient/memkube"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/memmaestro"
	"github.com/bundle-adapter/bundle-adapter/task"
)

// MaestroOptions are the in-memory Maestro's options for cfg: its clock and
// the configured source ID (work uids derive from it, as Maestro's do).
func MaestroOptions(cfg *config.Config, clock func() time.Time) memmaestro.Options {
	return memmaestro.Options{Clock: clock, SourceID: cfg.Adapter.Clients.Maestro.SourceID}
}

// KubeOptions are the in-memory API server's options: any kind is served,
// as a dry-run cannot know which custom resources the target cluster
// serves.
func KubeOptions(clock func() time.Time) memkube.Options {
	return memkube.Options{Clock: clock, AnyKind: true}
}

// MaestroState reads a Maestro state file (memmaestro.LoadStateWith).
func MaestroState(r io.Reader, opts memmaestro.Options) (*Maestro, error) {
	s, err := memmaestro.LoadStateWith(r, opts)
	if err != nil {
		return nil, err
	}
	return NewMaestro(s), nil
}

// MaestroDiscovery is an in-memory Maestro holding the ManifestWorks of
// HyperFleet adapter's discovery file that seed Maestro (see ToMaestro).
func MaestroDiscovery(r io.Reader, tc *task.TaskConfig, opts memmaestro.Options) (*Maestro, error) {
	kept, err := maestroDiscovery(r, tc)
	if err != nil {
		return nil, err
	}
	return LoadDiscovery(kept, opts)
}

// KubeState reads an in-memory API server state file (memkube.LoadState).
func KubeState(r io.Reader, opts memkube.Options) (*memkube.Store, error) {
	return memkube.LoadState(r, opts)
}

// KubeDiscovery is an in-memory API server seeded with the objects of
// HyperFleet adapter's discovery file that are not Maestro's (ToMaestro);
// empty when the task has no kubernetes resource.
func KubeDiscovery(r io.Reader, tc *task.TaskConfig, opts memkube.Options) (*memkube.Store, error) {
	s := memkube.New(opts)
	if !HasKubeResources(tc) {
		return s, nil
	}
	entries, err := discoveryEntries(r)
	if err != nil {
		return nil, err
	}
	var objs []*unstructured.Unstructured
	for _, e := range entries {
		if !ToMaestro(e.obj, tc) {
			objs = append(objs, &unstructured.Unstructured{Object: e.obj})
		}
	}
	if err := s.Seed(objs...); err != nil {
		return nil, err
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

// ToMaestro reports an entry of the discovery file that seeds the
// in-memory Maestro: a ManifestWork, when the task has a maestro resource
// (a task of kubernetes resources only applies even a ManifestWork to the
// API server).
func ToMaestro(obj map[string]any, tc *task.TaskConfig) bool {
	if obj["kind"] != "ManifestWork" {
		return false
	}
	for i := range tc.Resources {
		if !tc.Resources[i].IsKubernetes() {
			return true
		}
	}
	return false
}

// maestroDiscovery keeps the entries of the discovery file that seed the
// in-memory Maestro (see ToMaestro), as a discovery file again.
func maestroDiscovery(r io.Reader, tc *task.TaskConfig) (io.Reader, error) {
	entries, err := discoveryEntries(r)
	if err != nil {
		return nil, err
	}
	kept := map[string]map[string]any{}
	for _, e := range entries {
		if ToMaestro(e.obj, tc) {
			kept[e.name] = e.obj
		}
	}
	data, err := json.Marshal(kept)
	return bytes.NewReader(data), err
}

// HasKubeResources reports a task with a kubernetes resource.
func HasKubeResources(tc *task.TaskConfig) bool {
	for i := range tc.Resources {
		if tc.Resources[i].IsKubernetes() {
			return true
		}
	}
	return false
}

// API is the canned HyperFleet API of cfg: no answers (r nil), or the
// answers of a responses file (apistub.Load); it refuses what the
// configured client would refuse (base URL, allowed origins).
func API(cfg *config.Config, r io.Reader) (*apistub.Stub, error) {
	c := cfg.Adapter.Clients.HyperfleetAPI
	s := apistub.New(c.Version, nil)
	if r != nil {
		var err error
		if s, err = apistub.Load(r, c.Version); err != nil {
			return nil, err
		}
	}
	if !c.BaseURL.IsZero() {
		s.UseBaseURL(c.BaseURL.Reveal(), secret.RevealAll(c.AllowedOrigins))
	}
	return s, nil
}
