package task

import (
	"github.com/bundle-adapter/bundle-adapter/celenv"
	"github.com/bundle-adapter/bundle-adapter/internal/configfile"
	"github.com/bundle-adapter/bundle-adapter/tmpl"
	"regexp"
)

// IsKubernetes reports a resource of the kubernetes transport: one object
// applied straight to the cluster of clients.kubernetes.
func (r *Resource) IsKubernetes() bool { return r.Transport.Client == TransportKubernetes }

// resolveTransport settles the transport client of a resource and records
// it in r.Transport.Client. Without a transport a resource is a kubernetes
// one, as in HyperFleet's adapter, except an inline ManifestWork (its
// missing transport.maestro is then reported as before) or one that names
// transport.maestro.
func resolveTransport(r *Resource) string {
	if r.Transport.Client != "" || r.Transport.Maestro != nil {
		return r.Transport.Client
	}
	if r.Manifest != nil && r.Manifest.Ref == "" {
		if tree, ok := r.Manifest.Inline.(map[string]any); ok && tree["kind"] == "ManifestWork" {
			return ""
		}
	}
	r.Transport.Client = TransportKubernetes
	r.transportDefaulted = true
	return r.Transport.Client
}

// compileKubeResource checks and compiles a kubernetes resource: its
// manifest is the object itself (apiVersion, kind and metadata.name
// required), discovery finds it on the cluster (by_name or by_selectors,
// namespace templated), and its lifecycle rules are those of a bundle.
func compileKubeResource(l *configfile.ErrorList, env *celenv.Env, refs refs, r *Resource, path string) {
	if r.Transport.Maestro != nil {
		l.Warn(path+".transport.maestro", "has no effect on a kubernetes resource: it is applied to the cluster of clients.kubernetes")
	}
	compileManifest(l, refs, r, path+".manifest")
	if r.transportDefaulted && r.Manifest != nil && r.Manifest.Compiled != nil && r.Manifest.Compiled.RootKind() == "ManifestWork" {
		l.Add(path+".transport", "is required: {client: maestro, maestro: {target_cluster: ...}} (the manifest is a ManifestWork; without a transport it would be applied to the cluster as an object)")
	}
	if r.Discovery != nil {
		compileDiscovery(l, r.Discovery, path+".discovery")
		checkKubeDiscovery(l, r.Discovery, path+".discovery")
	}
	for i := range r.NestedDiscoveries {
		p := configfile.IndexPath(path+".nested_discoveries", i)
		compileDiscovery(l, &r.NestedDiscoveries[i].Discovery, p+".discovery")
	}
	if len(r.NestedDiscoveries) > 0 {
		l.Warn(path+".nested_discoveries", "finds nothing on a kubernetes resource (as in HyperFleet's adapter): nested discoveries look inside a ManifestWork's spec.workload.manifests; resources.%s is the object itself", r.Name)
	}
	if r.Manifest != nil && r.Manifest.Compiled != nil && r.Manifest.Compiled.Whole == nil {
		r.workName = manifestName(r.Manifest.Compiled.Tree)
	}
	if r.RecreateOnChange {
		recreateOnChange(l, r, path)
	}
	if r.Lifecycle != nil {
		CompileLifecycle(l, env, r, path+".lifecycle")
	}
}

// checkKubeDiscovery refuses what HyperFleet's loader refuses: both by_name
// and by_selectors, or a selector without labels.
func checkKubeDiscovery(l *configfile.ErrorList, d *Discovery, path string) {
	if d.ByName.Src != "" && d.BySelectors != nil {
		l.Add(path, "set by_name or by_selectors, not both")
	}
	if d.BySelectors != nil && len(d.BySelectors.LabelSelector) == 0 {
		l.Add(path+".by_selectors.label_selector", "needs at least one label")
	}
}

// checkKubeManifest requires what the API server needs to address the
// object: apiVersion, kind and metadata.name (literal or templated). A
// Whole manifest is checked once rendered (probeKubeObject).
func checkKubeManifest(l *configfile.ErrorList, m *Manifest, path string) {
	tree, ok := m.Tree.(map[string]any)
	if !ok {
		return
	}
	where := path
	if m.Ref != "" {
		where = path + " (" + m.Ref + ")"
	}
	for _, k := range []string{"apiVersion", "kind"} {
		if !kubeFieldSet(tree[k]) {
			l.Add(path+"."+k, "is required on a kubernetes resource: %s must name the object's %s", where, k)
		}
	}
	meta, _ := tree["metadata"].(map[string]any)
	if !kubeFieldSet(meta["name"]) {
		l.Add(path+".metadata.name", "is required on a kubernetes resource: %s must name the object it applies", where)
	}
}

func kubeFieldSet(v any) bool {
	switch x := v.(type) {
	case string:
		return x != ""
	case *tmpl.Template:
		return x != nil
	}
	return false
}

// manifestName is the template of a tree's metadata.name, nil if absent.
func manifestName(tree any) *tmpl.Template {
	root, _ := tree.(map[string]any)
	meta, _ := root["metadata"].(map[string]any)
	switch name := meta["name"].(type) {
	case *tmpl.Template:
		return name
	case string:
		if t, err := tmpl.Parse("metadata.name", name); err == nil {
			return t
		}
	}
	return nil
}

// probeKubeObject checks a kubernetes manifest rendered with sample values:
// apiVersion, kind and metadata.name must come out as non-empty strings. A
// literal missing from a tree was reported by checkKubeManifest already.
func probeKubeObject(l *configfile.ErrorList, r *Resource, path string, tree map[string]any) {
	m := r.Manifest.Compiled
	compiled, _ := m.Tree.(map[string]any)
	compiledMeta, _ := compiled["metadata"].(map[string]any)
	meta, _ := tree["metadata"].(map[string]any)
	fields := []struct {
		key           string
		rendered, src any
	}{
		{"apiVersion", tree["apiVersion"], compiled["apiVersion"]},
		{"kind", tree["kind"], compiled["kind"]},
		{"metadata.name", meta["name"], compiledMeta["name"]},
	}
	for _, f := range fields {
		if _, templated := f.src.(*tmpl.Template); m.Whole == nil && !templated {
			continue
		}
		if s, ok := f.rendered.(string); !ok || s == "" {
			l.Add(path+".manifest."+f.key, "%s: must be a non-empty string once rendered on a kubernetes resource, not %v", probeName(m, path), f.rendered)
		}
	}
}

// RootKind is the literal kind of the manifest's root object ("" when it is
// templated or absent): on a kubernetes resource, the kind of the object.
func (m *Manifest) RootKind() string {
	if m.Whole != nil {
		return manifestScanRootKind(m.Whole.Source())
	}
	root, _ := m.Tree.(map[string]any)
	kind, _ := root["kind"].(string)
	return kind
}

var manifestRootKindLine = regexp.MustCompile(`(?m)^kind: *["']?([A-Za-z0-9.]+)["']? *(#.*)?$`)

// manifestScanRootKind finds a literal top-level kind in template text.
func manifestScanRootKind(src string) string {
	if m := manifestRootKindLine.FindStringSubmatch(src); m != nil {
		return m[1]
	}
	return ""
}
