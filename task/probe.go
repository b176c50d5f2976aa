package task

import (
	"context"
	"errors"
	"github.com/bundle-adapter/bundle-adapter/celenv"
	"github.com/bundle-adapter/bundle-adapter/internal/configfile"
	"github.com/bundle-adapter/bundle-adapter/tmpl"
	"reflect"
	"slices"
	"time"
)

// probeTime is what now returns when templates are rendered at load: a
// fixed time, so a load never depends on the clock.
var probeTime = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// checkTemplates proves at load what every event would otherwise find out:
//
//   - every name a template reads from its data's top level (.x, $.x) is a
//     param, precondition, capture, payload or built-in (adapter, event,
//     metadata), as CEL names are type-checked;
//   - every template finishes within the template budget when rendered
//     with sample values (see sampleData);
//   - every bundle manifest rendered with sample values is one YAML
//     mapping of kind ManifestWork;
//   - every environment variable CEL or a template reads (env.NAME,
//     {{ .env.NAME }}) is set, unless every read is optional (env.?NAME).
//
// Rendering uses no network and a fixed clock (probeTime). A render that
// fails for another reason (a sample value of the wrong shape for what the
// template does with it) proves nothing and is not reported.
func checkTemplates(l *configfile.ErrorList, c *TaskConfig) {
	known := templateNames(c)
	data := sampleData(c, known)
	envSample := map[string]any{}
	data["env"] = envSample
	forEachTemplate(reflect.ValueOf(c), func(t *tmpl.Template) {
		tmpl.CheckNames(l, t, known)
		c.CEL.CheckTemplateEnvReads(l, t)
		for _, v := range c.CEL.EnvVars() {
			envSample[v.Name] = "sample"
		}
		if err := probeExecute(t, data); isBudgetError(err) {
			l.Add(t.Name, "%v", err)
		}
	})
	for i := range c.Resources {
		probeManifest(l, &c.Resources[i], configfile.IndexPath("resources", i), data, c.CheckWork)
	}
	// Every expression and template is compiled by now: the environment
	// variables they read are known.
	c.CEL.CheckEnvSet(l)
}

// templateNames are the names template data holds: the config's own (the
// CEL names without the CEL-only built-ins) and templateDataNames.
func templateNames(c *TaskConfig) []string {
	var names []string
	for _, n := range c.CEL.Names {
		if !slices.Contains(celenv.BuiltinVars, n) {
			names = append(names, n)
		}
	}
	return append(names, tmpl.DataNames...)
}

func probeExecute(t *tmpl.Template, data map[string]any) error {
	_, err := t.ExecuteContext(context.Background(), data, probeTime)
	return err
}

// isBudgetError reports whether err is a template limit, which no event
// can change: a template that exceeds one with sample values is broken.
func isBudgetError(err error) bool {
	for _, target := range []error{tmpl.ErrSteps, tmpl.ErrWork, tmpl.ErrTime, tmpl.ErrTooLarge, tmpl.ErrFuncLimit} {
		if errors.Is(err, target) {
			return true
		}
	}
	return false
}

// sampleData is template data for a render at load: each param a value
// of its type (its default when it has one, else "sample", 1, 1.0 or
// true), each precondition an empty response, each capture and payload a
// string, and event, adapter and metadata shaped as the pipeline builds
// them.
func sampleData(c *TaskConfig, known []string) map[string]any {
	data := map[string]any{}
	for _, n := range known {
		data[n] = "sample"
	}
	for _, p := range c.Preconditions {
		data[p.Name] = map[string]any{}
	}
	for _, p := range c.Params {
		data[p.Name] = sampleParam(p)
	}
	eventData := map[string]any{"id": "sample", "kind": "Cluster", "href": "/sample", "generation": int64(1)}
	event := map[string]any{"type": "sample", "source": "sample", "subject": "", "data": eventData}
	for k, v := range eventData {
		event[k] = v
	}
	labels := map[string]any{}
	for k, v := range c.Metadata.Labels {
		labels[k] = v
	}
	data["event"] = event
	data["adapter"] = map[string]any{"name": "sample", "version": "sample"}
	data["metadata"] = map[string]any{"name": c.Metadata.Name, "labels": labels}
	return data
}

func sampleParam(p Param) any {
	if p.Default != nil {
		return p.Default
	}
	switch p.Type {
	case "int", "int64":
		return int64(1)
	case "float", "float64":
		return float64(1)
	case "bool":
		return true
	}
	return "sample"
}

// forEachTemplate calls fn for every compiled template reachable from v:
// Text fields, manifest trees and wholes, payload builds.
// compiledHere are the packages whose structs a compiled task config is
// made of (its schema, and the leaves of the two languages); the walk
// never descends into another package's structs (yaml.Node, cel-go).
var compiledHere = map[string]bool{
	reflect.TypeFor[TaskConfig]().PkgPath():  true,
	reflect.TypeFor[tmpl.Text]().PkgPath():   true,
	reflect.TypeFor[celenv.Expr]().PkgPath(): true,
}

func forEachTemplate(v reflect.Value, fn func(*tmpl.Template)) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return
		}
		if t, ok := v.Interface().(*tmpl.Template); ok {
			if !t.Literal {
				fn(t)
			}
			return
		}
		if _, ok := v.Interface().(*celenv.Env); ok {
			return
		}
		forEachTemplate(v.Elem(), fn)
	case reflect.Struct:
		if !compiledHere[v.Type().PkgPath()] {
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				forEachTemplate(v.Field(i), fn)
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			forEachTemplate(v.Index(i), fn)
		}
	case reflect.Map:
		iter := v.MapRange()
		for iter.Next() {
			forEachTemplate(iter.Value(), fn)
		}
	}
}
