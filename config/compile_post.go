package config

func compilePost(l *errorList, env *CELEnv, dir string, p *Post) {
	for i := range p.Payloads {
		compilePayload(l, env, dir, &p.Payloads[i], indexPath("post.payloads", i))
	}
	actions := newUniqueNames(l, "post action")
	for i := range p.PostActions {
		a := &p.PostActions[i]
		path := indexPath("post.post_actions", i)
		actions.check(path, a.Name)
		if a.When != nil {
			compileWhen(l, env, a.When, path+".when")
		}
		compileLog(l, a.Log, path+".log")
		if a.APICall == nil {
			if a.Log == nil {
				l.add(path+".api_call", "is required (or log)")
			}
			continue
		}
		compileAPICall(l, a.APICall, path+".api_call", "PUT")
	}
}

func compilePayload(l *errorList, env *CELEnv, dir string, p *Payload, path string) {
	if p.When != nil {
		compileWhen(l, env, p.When, path+".when")
	}
	build := p.Build
	switch {
	case p.Build != nil && p.BuildRef != "":
		l.add(path, "set build or build_ref, not both")
		return
	case p.BuildRef != "":
		build = loadBuildRef(l, dir, p.BuildRef, path+".build_ref")
	case p.Build == nil:
		l.add(path+".build", "is required")
		return
	}
	p.Compiled = compileBuild(l, env, path+".build", build)
}

func loadBuildRef(l *errorList, dir, ref, path string) any {
	file, err := resolveRef(dir, ref)
	if err != nil {
		l.add(path, "%v", err)
		return nil
	}
	data, err := readFileBounded(file, MaxFileBytes)
	if err != nil {
		l.add(path, "cannot read %s: %v", ref, err)
		return nil
	}
	root, err := parseYAML(data)
	var out any
	if err == nil && root != nil {
		err = root.Decode(&out)
	}
	if err != nil {
		l.add(path, "%s: invalid YAML: %v", ref, err)
		return nil
	}
	return out
}

// compileLog checks a log action: a message template and a known level.
func compileLog(l *errorList, a *LogAction, path string) {
	if a == nil {
		return
	}
	if a.Message.Src == "" {
		l.add(path+".message", "is required")
	}
	compileText(l, &a.Message)
	oneOf(l, path+".level", a.Level, "", "debug", "info", "warn", "warning", "error")
}
