package config

import (
	"reflect"
	"strings"
)

// revealer is a secret type (internal/secret): RevealValue is its value as
// a param reads it.
type revealer interface{ RevealValue() any }

// revealSecrets writes into out, the YAML-marshalled form of the struct v
// (where secrets are redacted), the revealed value of every secret leaf.
func revealSecrets(v reflect.Value, out map[string]any) {
	if out == nil {
		return
	}
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "" || name == "-" || !f.IsExported() {
			continue
		}
		revealField(v.Field(i), name, out)
	}
}

func revealField(fv reflect.Value, name string, out map[string]any) {
	if r, ok := fv.Interface().(revealer); ok {
		if _, present := out[name]; present {
			out[name] = r.RevealValue()
		}
		return
	}
	switch fv.Kind() {
	case reflect.Pointer:
		if !fv.IsNil() && fv.Elem().Kind() == reflect.Struct {
			sub, _ := out[name].(map[string]any)
			revealSecrets(fv.Elem(), sub)
		}
	case reflect.Struct:
		sub, _ := out[name].(map[string]any)
		revealSecrets(fv, sub)
	case reflect.Slice:
		list, _ := out[name].([]any)
		for i := 0; i < fv.Len() && i < len(list); i++ {
			if r, ok := fv.Index(i).Interface().(revealer); ok {
				list[i] = r.RevealValue()
			}
		}
	}
}
