package task

import (
	"github.com/bundle-adapter/bundle-adapter/celenv"
	"github.com/bundle-adapter/bundle-adapter/internal/configfile"
	"github.com/bundle-adapter/bundle-adapter/tmpl"
)

func compilePost(l *configfile.ErrorList, env *celenv.Env, dir string, p *Post) {
	for i := range p.Payloads {
		compilePayload(l, env, dir, &p.Payloads[i], configfile.IndexPath("post.payloads", i))
	}
	actions := configfile.NewUniqueNames(l, "post action")
	for i := range p.PostActions {
		a := &p.PostActions[i]
		path := configfile.IndexPath("post.post_actions", i)
		actions.Check(path, a.Name)
		if a.When != nil {
			compileWhen(l, env, a.When, path+".when")
		}
		compileLog(l, a.Log, path+".log")
		if a.APICall == nil {
			if a.Log == nil {
				l.Add(path+".api_call", "is required (or log)")
			}
			continue
		}
		compileAPICall(l, a.APICall, path+".api_call", "PUT")
	}
}

func compilePayload(l *configfile.ErrorList, env *celenv.Env, dir string, p *Payload, path string) {
	if p.When != nil {
		compileWhen(l, env, p.When, path+".when")
	}
	build := p.Build
	switch {
	case p.Build != nil && p.BuildRef != "":
		l.Add(path, "set build or build_ref, not both")
		return
	case p.BuildRef != "":
		build = loadBuildRef(l, dir, p.BuildRef, path+".build_ref")
	case p.Build == nil:
		l.Add(path+".build", "is required")
		return
	}
	p.Compiled = compileBuild(l, env, path+".build", build)
}

func loadBuildRef(l *configfile.ErrorList, dir, ref, path string) any {
	file, err := resolveRef(dir, ref)
	if err != nil {
		l.Add(path, "%v", err)
		return nil
	}
	data, err := configfile.ReadFileBounded(file, configfile.MaxFileBytes)
	if err != nil {
		l.Add(path, "cannot read %s: %v", ref, err)
		return nil
	}
	root, err := configfile.ParseYAML(data)
	var out any
	if err == nil && root != nil {
		err = root.Decode(&out)
	}
	if err != nil {
		l.Add(path, "%s: invalid YAML: %v", ref, err)
		return nil
	}
	return out
}

// compileLog checks a log action: a message template and a known level.
func compileLog(l *configfile.ErrorList, a *LogAction, path string) {
	if a == nil {
		return
	}
	if a.Message.Src == "" {
		l.Add(path+".message", "is required")
	}
	tmpl.CompileText(l, &a.Message)
	configfile.OneOf(l, path+".level", a.Level, "", "debug", "info", "warn", "warning", "error")
}
