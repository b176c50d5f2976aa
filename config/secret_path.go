package config

import (
	"reflect"
	"strings"
)

// ReadsSecret reports whether a task-config param source config.<path>
// (path without the "config." prefix, as task.ParamSource.Field holds it)
// reads a value that is a secret in the adapter config (a type of
// internal/secret, revealed by Values): the path reaches a secret leaf,
// lies below one (default_headers.Authorization) or holds one in its
// subtree (clients.hyperfleet_api). The trace redacts such a param's value.
// A path the adapter config does not have reads nothing secret.
func ReadsSecret(path string) bool {
	t := reflect.TypeOf(AdapterConfig{})
	for _, key := range strings.Split(path, ".") {
		if t.Implements(revealerType) {
			return true
		}
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			return false
		}
		f, ok := yamlField(t, key)
		if !ok {
			return false
		}
		t = f.Type
	}
	return holdsSecret(t, map[reflect.Type]bool{})
}

var revealerType = reflect.TypeOf((*revealer)(nil)).Elem()

// yamlField is t's exported field whose yaml name is key.
func yamlField(t reflect.Type, key string) (reflect.StructField, bool) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if f.IsExported() && name == key && name != "-" {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// holdsSecret reports whether t is, or holds in a field read from YAML, a
// secret type.
func holdsSecret(t reflect.Type, seen map[reflect.Type]bool) bool {
	if t.Implements(revealerType) {
		return true
	}
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
		t = t.Elem()
		if t.Implements(revealerType) {
			return true
		}
	}
	if t.Kind() != reflect.Struct || seen[t] {
		return false
	}
	seen[t] = true
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if f.IsExported() && name != "" && name != "-" && holdsSecret(f.Type, seen) {
			return true
		}
	}
	return false
}
