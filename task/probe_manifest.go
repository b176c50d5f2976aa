package task

import (
	"context"
	"fmt"
	"github.com/bundle-adapter/bundle-adapter/internal/configfile"
	"github.com/bundle-adapter/bundle-adapter/tmpl"
)

// probeManifest renders a resource's manifest with sample values and
// checks what every event would: a Whole manifest must be one YAML
// document, and the rendered root must be a mapping of kind ManifestWork
// (a kind produced or hidden by a template included).
func probeManifest(l *configfile.ErrorList, r *Resource, path string, data map[string]any, check WorkChecker) {
	if r.Manifest == nil || r.Manifest.Compiled == nil {
		return
	}
	m := r.Manifest.Compiled
	root, ok := probeRender(l, m, path, data)
	if !ok {
		return
	}
	tree, isMap := root.(map[string]any)
	if !isMap {
		l.Add(path+".manifest", "%s renders to %s, not a mapping", probeName(m, path), manifestDescribe(root))
		return
	}
	if r.IsKubernetes() {
		probeKubeObject(l, r, path, tree)
		return
	}
	probeDropped(l, check, r, path, tree)
	if _, literal := tree["kind"].(string); literal && m.Whole == nil && !probeTemplated(m.Tree, "kind") {
		return // a literal kind was checked by checkManifestKind
	}
	if kind, _ := tree["kind"].(string); kind != "ManifestWork" {
		l.Add(path+".manifest.kind", "%s: must be ManifestWork (the maestro transport delivers ManifestWork bundles), not %q once rendered", probeName(m, path), kind)
	}
}

// probeDropped warns about each field of the sample-rendered ManifestWork
// that its type does not have: Maestro drops it, and so does the adapter
// (HyperFleet's examples carry spec.deleteOption.gracePeriodSeconds).
func probeDropped(l *configfile.ErrorList, check WorkChecker, r *Resource, path string, tree map[string]any) {
	if kind, _ := tree["kind"].(string); check == nil || (kind != "" && kind != "ManifestWork") {
		return
	}
	in := ""
	if ref := r.Manifest.Compiled.Ref; ref != "" {
		in = ref + ": "
	}
	for _, f := range check(tree) {
		l.Warn(path+".manifest", "%sfield %s is not part of a ManifestWork: Maestro drops it, and so does this adapter", in, f)
	}
}

// probeRender renders m with data; ok is false when it cannot prove
// anything (a render error, reported elsewhere if it is a limit).
func probeRender(l *configfile.ErrorList, m *Manifest, path string, data map[string]any) (any, bool) {
	if m.Whole == nil {
		out, err := probeTree(m.Tree, data)
		return out, err == nil
	}
	text, err := m.Whole.ExecuteContext(context.Background(), data, probeTime)
	if err != nil {
		return nil, false
	}
	raw, err := manifestDecodeYAML([]byte(text))
	if err != nil {
		l.Add(path+".manifest", "%s: rendered with sample values, the manifest is not valid YAML: %v", m.Ref, err)
		return nil, false
	}
	return raw, true
}

func probeTree(v any, data map[string]any) (any, error) {
	return ExecuteTree(context.Background(), v, data, probeTime)
}

// probeTemplated reports whether the root's key holds a template.
func probeTemplated(tree any, key string) bool {
	root, _ := tree.(map[string]any)
	_, ok := root[key].(*tmpl.Template)
	return ok
}

func probeName(m *Manifest, path string) string {
	if m.Ref != "" {
		return m.Ref
	}
	return fmt.Sprintf("%s.manifest", path)
}

// WorkChecker returns the paths ("spec.deleteOption.gracePeriodSeconds") of
// the fields of a rendered ManifestWork that its Go type does not have.
// Maestro drops such fields, and so does the adapter when it renders a
// bundle; the load warns about each one so validate shows it.
type WorkChecker func(work map[string]any) []string
