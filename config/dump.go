package config

import (
	"io"
	"reflect"

	"github.com/bundle-adapter/bundle-adapter/internal/secret"
	"gopkg.in/yaml.v3"
)

// Redacted is what a secret is replaced with in dumps and logs.
const Redacted = secret.Redacted

// Dump writes the merged adapter and broker config (defaults, file, env and
// flags applied) as YAML, with secrets redacted: every value of a secret
// type (internal/secret: URLs, header values) prints redacted by itself,
// and as a second line of defence every other string is passed through
// RedactURL and every field tagged secret is replaced. The task config is not included: it is
// exactly its file.
//
// A leaf left at zero whose default is named by its bound (AdapterBounds,
// BrokerBounds: Bound.Zero) shows the value in effect, commented
// "# default", or keeps its zero commented with what zero means
// (effectiveDefaults).
func (c *Config) Dump(w io.Writer) error {
	doc := &yaml.Node{Kind: yaml.MappingNode}
	add := func(key string, v any, bounds map[string]Bound) error {
		var n yaml.Node
		if err := n.Encode(v); err != nil {
			return err
		}
		effectiveDefaults(&n, bounds)
		doc.Content = append(doc.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: key}, &n)
		return nil
	}
	if err := add("adapter_config", redact(c.Adapter), AdapterBounds); err != nil {
		return err
	}
	if c.Broker != nil {
		if err := add("broker_config", redact(c.Broker), BrokerBounds); err != nil {
			return err
		}
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
	case reflect.Slice:
		if !v.IsNil() {
			cp := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
			reflect.Copy(cp, v)
			for i := 0; i < cp.Len(); i++ {
				redactValue(cp.Index(i))
			}
			v.Set(cp)
		}
	case reflect.String:
		v.SetString(RedactURL(v.String()))
	}
}

// RedactURL hides the credentials of anything that looks like a URL with
// user info; see secret.RedactURL. It never prints the password of a URL
// whose password holds an unescaped '/', '?' or '#'
// ("amqp://user:1234/S3CRET@host/" prints "amqp://user:REDACTED@host/").
func RedactURL(s string) string { return secret.RedactURL(s) }

// DumpTask writes the task config as loaded, as YAML: this adapter's
// spelling, every default filled in, refs as written (task/dump.go). Its
// values are the config's own text (templates, CEL, literals): a secret is
// never in it, as the task config names env variables and files, not their
// values.
func (c *Config) DumpTask(w io.Writer) error {
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(c.Task); err != nil {
		return err
	}
	return enc.Close()
}
