package task

import (
	"github.com/bundle-adapter/bundle-adapter/celenv"
	"github.com/bundle-adapter/bundle-adapter/internal/configfile"
	"github.com/bundle-adapter/bundle-adapter/tmpl"
	"maps"
	"path/filepath"
	"slices"
	"strings"
)

func compileResource(l *configfile.ErrorList, env *celenv.Env, refs refs, r *Resource, path string) {
	if resolveTransport(r) == TransportKubernetes {
		compileKubeResource(l, env, refs, r, path)
		return
	}
	compileTransport(l, &r.Transport, path+".transport")
	compileManifest(l, refs, r, path+".manifest")
	if r.Discovery != nil {
		compileDiscovery(l, r.Discovery, path+".discovery")
		if r.Discovery.Namespace.Src != "" {
			l.Warn(path+".discovery.namespace", "has no effect on a bundle: a ManifestWork lives in its consumer's namespace (transport.maestro.target_cluster); it applies to nested_discoveries")
		}
	}
	nested := configfile.NewUniqueNames(l, "nested discovery")
	for i := range r.NestedDiscoveries {
		p := configfile.IndexPath(path+".nested_discoveries", i)
		nested.Check(p, r.NestedDiscoveries[i].Name)
		compileDiscovery(l, &r.NestedDiscoveries[i].Discovery, p+".discovery")
	}
	r.workName = r.findWorkName()
	if r.workName == nil && r.Manifest != nil && r.Manifest.Compiled != nil {
		l.Add(path, "the bundle needs a name: set discovery.by_name or metadata.name in the manifest")
	}
	if r.RecreateOnChange {
		recreateOnChange(l, r, path)
	}
	if r.Lifecycle != nil {
		CompileLifecycle(l, env, r, path+".lifecycle")
	}
}

// recreateOnChange maps HyperFleet's recreate_on_change: true onto a
// recreate rule that always holds; compileLifecycle then checks it as any
// recreate rule (discovery, destructive kinds).
func recreateOnChange(l *configfile.ErrorList, r *Resource, path string) {
	if r.Lifecycle != nil && r.Lifecycle.Recreate != nil {
		l.Add(path+".recreate_on_change", "set recreate_on_change or lifecycle.recreate, not both")
		r.RecreateOnChange = false // the errors that follow name lifecycle.recreate
		return
	}
	if r.Lifecycle == nil {
		r.Lifecycle = &Lifecycle{}
	}
	p := path + ".recreate_on_change"
	r.Lifecycle.Recreate = &LifecycleRule{When: &When{Expression: &celenv.Expr{Src: "true", Path: p, Line: l.LineOf(p)}}}
}

func compileTransport(l *configfile.ErrorList, t *Transport, path string) {
	switch t.Client {
	case "maestro":
	case "":
		if t.Maestro == nil {
			l.Add(path, "is required: {client: maestro, maestro: {target_cluster: ...}}")
			return
		}
	default:
		l.Add(path+".client", "must be maestro or kubernetes, not %q", t.Client)
		return
	}
	if t.Maestro == nil || t.Maestro.TargetCluster.Src == "" {
		l.Add(path+".maestro.target_cluster", "is required: the Maestro consumer that receives the bundle")
		return
	}
	tmpl.CompileText(l, &t.Maestro.TargetCluster)
}

func compileDiscovery(l *configfile.ErrorList, d *Discovery, path string) {
	tmpl.CompileText(l, &d.Namespace)
	tmpl.CompileText(l, &d.ByName)
	if d.ByName.Src == "" && d.BySelectors == nil {
		l.Add(path, "needs by_name or by_selectors")
	}
	if d.BySelectors != nil {
		compileSelectors(l, d.BySelectors, path+".by_selectors.label_selector")
	}
}

// compileSelectors compiles every label's key and value as templates into
// s.Labels, sorted by key source. An empty key is an error.
func compileSelectors(l *configfile.ErrorList, s *Selectors, path string) {
	s.Labels = s.Labels[:0]
	for _, k := range slices.Sorted(maps.Keys(s.LabelSelector)) {
		v := s.LabelSelector[k]
		v.Path = path + "." + k
		tmpl.CompileText(l, &v)
		s.LabelSelector[k] = v
		key := tmpl.Text{Src: k, Path: path + "." + k + " (key)"}
		if k == "" {
			l.Add(key.Path, "label key is empty")
		}
		tmpl.CompileText(l, &key)
		s.Labels = append(s.Labels, Label{Key: key, Value: v})
	}
}

func compileManifest(l *configfile.ErrorList, refs refs, r *Resource, path string) {
	m := r.Manifest
	if m == nil {
		l.Add(path, "is required: an inline ManifestWork or {ref: file}")
		return
	}
	var err error
	if m.Ref != "" {
		file, ferr := refs.resolve(m.Ref)
		if ferr != nil {
			l.Add(path+".ref", "%v", ferr)
			return
		}
		data, rerr := configfile.ReadFileBounded(file, configfile.MaxFileBytes)
		if rerr != nil {
			l.Add(path+".ref", "cannot read %s: %v", m.Ref, rerr)
			return
		}
		m.Compiled, err = CompileManifestFile(file, data)
	} else {
		m.Compiled, err = CompileManifest(path, m.Inline)
		if err == nil {
			// inline templates are named by YAML path: record their file:line
			tmpl.Walk(m.Compiled.Tree, func(t *tmpl.Template) { t.SetWhere(l.Where(t.Name)) })
		}
	}
	if err != nil {
		l.Add(path, "%v", err)
		m.Compiled = nil
		return
	}
	if r.IsKubernetes() {
		checkKubeManifest(l, m.Compiled, path)
		return
	}
	checkManifestKind(l, m.Compiled, path)
}

// checkManifestKind rejects a literal kind other than ManifestWork.
func checkManifestKind(l *configfile.ErrorList, m *Manifest, path string) {
	tree, ok := m.Tree.(map[string]any)
	if !ok {
		return
	}
	if kind, isString := tree["kind"].(string); isString && kind != "ManifestWork" {
		l.Add(path+".kind", "must be ManifestWork (the maestro transport delivers ManifestWork bundles), not %q", kind)
	}
}

// resolveRef resolves a manifest ref relative to the config folder and
// refuses anything outside that folder, including through symlinks.
func resolveRef(dir, ref string) (string, error) {
	if filepath.IsAbs(ref) {
		return "", configfile.Errorf("ref %q must be relative to the config file's folder", ref)
	}
	file := filepath.Join(dir, ref)
	if !within(dir, file) {
		return "", configfile.Errorf("ref %q points outside the config file's folder", ref)
	}
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", configfile.Errorf("cannot resolve %s: %v", dir, configfile.UnwrapPathErr(err))
	}
	realFile, err := filepath.EvalSymlinks(file)
	if err != nil {
		return "", configfile.Errorf("cannot read %s: %v", ref, configfile.UnwrapPathErr(err))
	}
	if !within(realDir, realFile) {
		return "", configfile.Errorf("ref %q resolves (through a link) outside the config file's folder", ref)
	}
	return realFile, nil
}

func within(dir, file string) bool {
	rel, err := filepath.Rel(dir, file)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

func CompileLifecycle(l *configfile.ErrorList, env *celenv.Env, r *Resource, path string) {
	lc := r.Lifecycle
	if lc.Create != nil {
		compileWhen(l, env, lc.Create.When, path+".create.when")
		if r.Discovery == nil {
			l.Add(path+".create", "requires a discovery block on the resource: the rule is evaluated only while the bundle is absent")
		}
	}
	if lc.Delete != nil {
		compileRule(l, env, lc.Delete, path+".delete", r.IsKubernetes())
	}
	if lc.Recreate == nil {
		return
	}
	rp := path + ".recreate"
	if r.RecreateOnChange {
		rp = configfile.ParentPath(path) + ".recreate_on_change"
	}
	compileRule(l, env, lc.Recreate, rp, r.IsKubernetes())
	if r.Discovery == nil {
		l.Add(rp, "requires a discovery block on the resource: recreation compares the observed bundle with the desired one")
	}
	if r.Manifest == nil || r.Manifest.Compiled == nil || r.AllowDestructiveRecreate {
		return
	}
	if r.IsKubernetes() {
		if k := r.Manifest.Compiled.RootKind(); slices.Contains(destructiveKinds, k) {
			l.Add(rp, "the resource is a %s: recreating it deletes everything inside it; set allow_destructive_recreate: true on the resource if that is intended", k)
		}
		return
	}
	for _, k := range r.Manifest.Compiled.Kinds() {
		if slices.Contains(destructiveKinds, k) {
			l.Add(rp, "the bundle contains a %s: recreating it deletes everything inside it; set allow_destructive_recreate: true on the resource if that is intended", k)
			return
		}
	}
}

func compileRule(l *configfile.ErrorList, env *celenv.Env, rule *LifecycleRule, path string, kube bool) {
	compileWhen(l, env, rule.When, path+".when")
	checkBound(l, path+".deletion_deadline", "LifecycleRule.DeletionDeadline", int64(rule.DeletionDeadline))
	checkBound(l, path+".redelete_window", "LifecycleRule.RedeleteWindow", int64(rule.RedeleteWindow))
	if rule.DeletionDeadline == 0 {
		rule.DeletionDeadline = configfile.Duration(DefaultDeletionDeadline)
	}
	CompileRedelete(l, rule, path)
	if rule.PropagationPolicy != "" {
		configfile.OneOf(l, path+".propagation_policy", rule.PropagationPolicy, "Foreground", "Background", "Orphan")
		if kube {
			return
		}
		l.Warn(path+".propagation_policy", "has no effect on a Maestro bundle (as in HyperFleet's adapter): the ManifestWork's spec.deleteOption.propagationPolicy governs how the agent cleans up")
	}
}

// WorkName is the template naming the bundle in Maestro: discovery.by_name,
// else the manifest's metadata.name. Nil when neither is set. On a
// kubernetes resource it is the template of the manifest's metadata.name
// (the object's name; discovery.by_name is what discovery reads).
func (r *Resource) WorkName() *tmpl.Template { return r.workName }

func (r *Resource) findWorkName() *tmpl.Template {
	if r.Discovery != nil && r.Discovery.ByName.T != nil {
		return r.Discovery.ByName.T
	}
	if r.Manifest == nil || r.Manifest.Compiled == nil {
		return nil
	}
	tree, ok := r.Manifest.Compiled.Tree.(map[string]any)
	if !ok {
		return nil
	}
	meta, _ := tree["metadata"].(map[string]any)
	switch name := meta["name"].(type) {
	case *tmpl.Template:
		return name
	case string:
		t, err := tmpl.Parse("metadata.name", name)
		if err == nil {
			return t
		}
	}
	return nil
}
