package config_test

import (
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/bundle-adapter/bundle-adapter/config"
	"github.com/bundle-adapter/bundle-adapter/internal/secret"
	"github.com/bundle-adapter/bundle-adapter/tracing"
)

// credentialWords are the field names (lower case, substrings) that can
// hold a credential.
var credentialWords = []string{"password", "passwd", "secret", "token", "key", "credential", "auth", "header",
	"cookie", "url", "uri", "endpoint", "address", "origin", "dsn"}

// notCredentials are the fields whose names match credentialWords but hold
// none, each with the reason. A new field is not added here without one.
var notCredentials = map[string]string{
	"clients.hyperfleet_api.auth.token_path":   "a file path: the token is read from the file at each request, never held in the config",
	"clients.maestro.auth.type":                "tls, none or empty",
	"clients.maestro.auth.tls_config.key_file": "a file path: the key is read at start-up",
	"broker.rabbitmq.routing_key":              "an AMQP routing key (a binding pattern), not a credential",
}

// secretTypes are the types every credential-capable field must have.
var secretTypes = []reflect.Type{
	reflect.TypeFor[secret.String](), reflect.TypeFor[secret.URL](), reflect.TypeFor[secret.Headers](),
	reflect.TypeFor[[]secret.URL](), reflect.TypeFor[[]secret.String](),
}

// Issue 28, "secrets are a type": every field of every config struct that
// could hold a credential, by its name or by being a URL or a header map,
// is one of the secret types, whose every printed form redacts.
func TestCredentialFieldsAreSecretTypes(t *testing.T) {
	roots := map[string]reflect.Type{
		"adapter config": reflect.TypeFor[config.AdapterConfig](),
		"broker config":  reflect.TypeFor[config.BrokerConfig](),
		"tracing config": reflect.TypeFor[tracing.Config](),
	}
	seen := 0
	allowed := map[string]bool{}
	for name, typ := range roots {
		walkFields(typ, "", func(path, field string, ft reflect.Type) {
			seen++
			if _, ok := notCredentials[path]; ok {
				allowed[path] = true
			}
			if bad := credentialField(path, field, ft); bad != "" {
				t.Errorf("%s: %s (%s) %s: make it a secret.String, secret.URL or secret.Headers (internal/secret), or list it in notCredentials with the reason", name, path, ft, bad)
			}
		})
	}
	for path := range notCredentials {
		if !allowed[path] {
			t.Errorf("notCredentials lists %s, which no config has any more: remove it", path)
		}
	}
	t.Logf("walked %d fields", seen)
	if seen < 50 {
		t.Fatalf("walked %d fields: the walk does not reach the configs' leaves", seen)
	}
}

// credentialField says why a leaf looks like a credential and is not of a
// secret type, or "" when it is fine. field is its YAML and Go names.
func credentialField(path, field string, ft reflect.Type) string {
	for _, st := range secretTypes {
		if ft == st {
			return ""
		}
	}
	if _, ok := notCredentials[path]; ok {
		return ""
	}
	inner := ft
	for inner.Kind() == reflect.Pointer || inner.Kind() == reflect.Slice {
		inner = inner.Elem()
	}
	switch {
	case inner == reflect.TypeFor[url.URL]() || inner == reflect.TypeFor[url.Userinfo]():
		return "is a URL"
	case ft.Kind() == reflect.Map && ft.Key().Kind() == reflect.String && ft.Elem().Kind() == reflect.String:
		return "is a map of strings (headers)"
	}
	if !holdsText(ft) {
		return ""
	}
	lower := strings.ToLower(field)
	for _, w := range credentialWords {
		if strings.Contains(lower, w) {
			return "is named like a credential (" + w + ")"
		}
	}
	return ""
}

// holdsText reports a string, or a list or map of them.
func holdsText(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.String:
		return true
	case reflect.Slice, reflect.Array, reflect.Pointer:
		return holdsText(t.Elem())
	case reflect.Map:
		return holdsText(t.Elem()) || t.Elem().Kind() == reflect.Interface
	case reflect.Interface:
		return true
	}
	return false
}

// walkFields calls leaf for every field of t that is not a plain nested
// struct, with its YAML path (the Go name where there is no yaml tag). The
// secret types are leaves.
func walkFields(t reflect.Type, prefix string, leaf func(path, field string, ft reflect.Type)) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		path := name
		if prefix != "" {
			path = prefix + "." + name
		}
		ft := f.Type
		inner := ft
		for inner.Kind() == reflect.Pointer || inner.Kind() == reflect.Slice || inner.Kind() == reflect.Map {
			inner = inner.Elem()
		}
		if inner.Kind() == reflect.Struct && !isSecret(inner) && inner.PkgPath() != "net/url" && inner.NumField() > 0 && inner.Field(0).IsExported() {
			walkFields(inner, path, leaf)
			continue
		}
		leaf(path, name+" "+f.Name, ft)
	}
}

func isSecret(t reflect.Type) bool {
	return t.PkgPath() == reflect.TypeFor[secret.URL]().PkgPath()
}
