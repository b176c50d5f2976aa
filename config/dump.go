package config

import (
	"io"
	"net/url"
	"reflect"
	"strings"

	"gopkg.in/yaml.v3"
)

// Redacted is what a secret is replaced with in dumps and logs.
const Redacted = "REDACTED"

// Dump writes the merged adapter and broker config (defaults, file, env and
// flags applied) as YAML, with secrets redacted: passwords inside URLs and
// every field tagged secret. The task config is not included: it is
// exactly its file.
func (c *Config) Dump(w io.Writer) error {
	doc := map[string]any{"adapter_config": redact(c.Adapter)}
	if c.Broker != nil {
		doc["broker_config"] = redact(c.Broker)
	}
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return err
	}
	return enc.Close()
}

// redact returns a copy of the struct *p with secrets replaced.
func redact[T any](p *T) *T {
	cp := *p
	redactValue(reflect.ValueOf(&cp).Elem())
	return &cp
}

func redactValue(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			cp := reflect.New(v.Type().Elem())
			cp.Elem().Set(v.Elem())
			redactValue(cp.Elem())
			v.Set(cp)
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			f := v.Type().Field(i)
			if !f.IsExported() {
				continue
			}
			if f.Tag.Get("secret") == "true" && v.Field(i).Kind() == reflect.String && v.Field(i).String() != "" {
				v.Field(i).SetString(Redacted)
				continue
			}
			redactValue(v.Field(i))
		}
	case reflect.String:
		v.SetString(RedactURL(v.String()))
	}
}

// RedactURL hides the password of a URL with credentials
// ("amqp://guest:REDACTED@host/"); other strings are returned unchanged.
func RedactURL(s string) string {
	if !strings.Contains(s, "://") || !strings.Contains(s, "@") {
		return s
	}
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		return s
	}
	if _, has := u.User.Password(); !has {
		return s
	}
	u.User = url.UserPassword(u.User.Username(), Redacted)
	return strings.Replace(u.String(), url.QueryEscape(Redacted), Redacted, 1)
}
