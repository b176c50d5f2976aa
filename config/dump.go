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
// user info: "amqp://guest:REDACTED@host/" keeps the user name and hides
// the password, "https://REDACTED@host" hides a lone user name (often a
// token). A string that does not parse as a URL is redacted by its shape
// (what sits between "://" and the last "@", or before the "@" of a
// scheme-less "user:password@host"), so a typo in a URL never prints the
// password. Other strings are returned unchanged.
func RedactURL(s string) string {
	if !strings.Contains(s, "@") {
		return s
	}
	u, err := url.Parse(s)
	if err == nil && u.Opaque == "" && u.Host != "" {
		if u.User == nil {
			return s
		}
		if strings.Contains(s[strings.Index(s, u.Host):], "@") {
			return redactUserInfo(s) // "u:p@ss/w@rd@host": which '@' ends the password is a guess
		}
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), Redacted)
		} else {
			u.User = url.User(Redacted)
		}
		return u.String()
	}
	return redactUserInfo(s)
}

// redactUserInfo hides user info by the string's shape alone.
func redactUserInfo(s string) string {
	start := 0
	if i := strings.Index(s, "://"); i >= 0 {
		start = i + 3
	}
	rest := s[start:]
	at := strings.LastIndex(rest, "@")
	user, _, hasPass := strings.Cut(rest[:at], ":")
	switch {
	case start == 0 && !hasPass:
		return s // "ops@example.com": no credentials
	case hasPass && !strings.ContainsAny(user, "/?#") && user != "":
		return s[:start] + user + ":" + Redacted + rest[at:]
	default:
		return s[:start] + Redacted + rest[at:]
	}
}
