package config

import (
	"encoding"
	"os"
	"reflect"
	"strconv"
	"strings"

	"github.com/bundle-adapter/bundle-adapter/internal/configfile"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"
)

// leafPaths lists the YAML paths of every settable leaf of a config struct
// ("clients.maestro.source_id").
func leafPaths(t reflect.Type, prefix string) []string {
	var out []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "-" || name == "" || !f.IsExported() {
			continue
		}
		p := configfile.JoinPath(prefix, name)
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if ft.Kind() == reflect.Struct && !isTextLeaf(ft) {
			out = append(out, leafPaths(ft, p)...)
			continue
		}
		out = append(out, p)
	}
	return out
}

var textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()

// isTextLeaf reports a type set from one env or flag string by its own
// UnmarshalText (the secret types), which leafPaths does not descend into.
func isTextLeaf(t reflect.Type) bool {
	return t.Kind() != reflect.Pointer && reflect.PointerTo(t).Implements(textUnmarshalerType)
}

// adapterEnvNames gives the environment variables that override an adapter
// config leaf, most specific first. The rule is HYPERFLEET_ + the path
// without "clients.", with hyperfleet_api spelled API, upper-cased with
// underscores: clients.maestro.source_id -> HYPERFLEET_MAESTRO_SOURCE_ID,
// clients.hyperfleet_api.base_url -> HYPERFLEET_API_BASE_URL. TLS files also
// answer to the short names HyperFleet uses (HYPERFLEET_MAESTRO_CA_FILE), and
// log settings to LOG_LEVEL, LOG_FORMAT and LOG_OUTPUT.
func adapterEnvNames(path string) []string {
	p := strings.TrimPrefix(path, "clients.")
	p = strings.Replace(p, "hyperfleet_api.", "api.", 1)
	names := []string{"HYPERFLEET_" + envKey(p)}
	if short := strings.Replace(p, "auth.tls_config.", "", 1); short != p {
		names = append(names, "HYPERFLEET_"+envKey(short))
	}
	if strings.HasPrefix(p, "log.") {
		names = append(names, envKey(p))
	}
	return names
}

// brokerEnvNames: the upper-cased path, e.g. BROKER_RABBITMQ_URL,
// SUBSCRIBER_PARALLELISM.
func brokerEnvNames(path string) []string { return []string{envKey(path)} }

func envKey(path string) string {
	return strings.ToUpper(strings.ReplaceAll(path, ".", "_"))
}

// FlagName is the command-line flag that overrides an adapter config leaf:
// the env rule without the prefix, lower-case with dashes, e.g.
// --maestro-source-id, --api-base-url, --log-level.
func FlagName(path string) string {
	return strings.ToLower(strings.ReplaceAll(strings.TrimPrefix(adapterEnvNames(path)[0], "HYPERFLEET_"), "_", "-"))
}

// hyperfleetFlags are the flag names HyperFleet's adapter gives the leaves
// whose names differ from FlagName's, so its command lines work unchanged.
var hyperfleetFlags = map[string]string{
	"clients.hyperfleet_api.base_url":              "hyperfleet-api-base-url",
	"clients.hyperfleet_api.version":               "hyperfleet-api-version",
	"clients.hyperfleet_api.timeout":               "hyperfleet-api-timeout",
	"clients.hyperfleet_api.retry_attempts":        "hyperfleet-api-retry",
	"clients.hyperfleet_api.retry_backoff":         "hyperfleet-api-retry-backoff",
	"clients.hyperfleet_api.auth.token_path":       "hyperfleet-api-auth-token-path",
	"clients.hyperfleet_api.auth.token_cache_ttl":  "hyperfleet-api-auth-token-cache-ttl",
	"clients.maestro.auth.tls_config.ca_file":      "maestro-ca-file",
	"clients.maestro.auth.tls_config.cert_file":    "maestro-cert-file",
	"clients.maestro.auth.tls_config.key_file":     "maestro-key-file",
	"clients.maestro.auth.tls_config.http_ca_file": "maestro-http-ca-file",
	"clients.maestro.auth.tls_config.server_name":  "maestro-server-name",
}

// flagNames is FlagName and, where HyperFleet's adapter spells the flag
// otherwise, that spelling too.
func flagNames(path string) []string {
	names := []string{FlagName(path)}
	if alt, ok := hyperfleetFlags[path]; ok {
		names = append(names, alt)
	}
	return names
}

// RegisterAdapterFlags adds one string flag per adapter config leaf to fs,
// and HyperFleet's spelling of it where that differs.
func RegisterAdapterFlags(fs *pflag.FlagSet) {
	for _, p := range leafPaths(reflect.TypeOf(AdapterConfig{}), "") {
		names := flagNames(p)
		fs.String(names[0], "", "override "+p+" of the adapter config (env "+adapterEnvNames(p)[0]+")")
		for _, alt := range names[1:] {
			fs.String(alt, "", "the same as --"+names[0]+" (HyperFleet adapter's name)")
		}
	}
}

// applyOverrides sets every leaf of cfg for which an environment variable
// (or a changed flag in fs) has a value. Viper supplies the precedence:
// flag over env. It returns what set each overridden leaf ("env
// SUBSCRIBER_PARALLELISM", "flag --maestro-timeout"), so a later error
// about that leaf names it.
func applyOverrides(l *configfile.ErrorList, cfg any, envNames func(string) []string, fs *pflag.FlagSet) map[string]string {
	v := viper.New()
	root := reflect.ValueOf(cfg).Elem()
	paths := leafPaths(root.Type(), "")
	flags := map[string]string{}
	for _, p := range paths {
		_ = v.BindEnv(append([]string{p}, envNames(p)...)...)
		if fs == nil {
			continue
		}
		for _, name := range flagNames(p) {
			if f := fs.Lookup(name); f != nil && f.Changed {
				_ = v.BindPFlag(p, f)
				flags[p] = "flag --" + name
			}
		}
	}
	sources := map[string]string{}
	for _, p := range paths {
		if !v.IsSet(p) {
			continue
		}
		sources[p] = overrideSource(p, envNames, flags)
		if err := setLeaf(root, p, v.GetString(p)); err != nil {
			l.Add(p, "override from %s: %v", strings.Join(envNames(p), " or "), err)
		}
	}
	return sources
}

// overrideSource names the flag or, failing that, the first set
// environment variable that overrides the leaf at path.
func overrideSource(path string, envNames func(string) []string, flags map[string]string) string {
	if f, ok := flags[path]; ok {
		return f
	}
	for _, name := range envNames(path) {
		if _, ok := os.LookupEnv(name); ok {
			return "env " + name
		}
	}
	return "env " + envNames(path)[0]
}

// setLeaf parses s into the leaf at path. A list of strings is written
// comma-separated ("https://a.example.com,https://b.example.com").
func setLeaf(v reflect.Value, path, s string) error {
	for _, key := range strings.Split(path, ".") {
		if v.Kind() == reflect.Pointer {
			if v.IsNil() {
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
		v = v.FieldByIndex(configfile.StructFields(v.Type())[key])
	}
	if v.Kind() == reflect.Pointer { // an optional leaf (*bool, *Duration)
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		v = v.Elem()
	}
	if isTextLeaf(v.Type()) { // secret.URL, secret.String, secret.Headers
		return v.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(s))
	}
	switch {
	case v.Kind() == reflect.Slice && isTextLeaf(v.Type().Elem()): // []secret.URL
		items := strings.Split(s, ",")
		out := reflect.MakeSlice(v.Type(), 0, len(items))
		for _, item := range items {
			if item = strings.TrimSpace(item); item == "" {
				continue
			}
			e := reflect.New(v.Type().Elem())
			if err := e.Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(item)); err != nil {
				return err
			}
			out = reflect.Append(out, e.Elem())
		}
		v.Set(out)
	case v.Type() == configfile.DurationType:
		d, err := configfile.ParseDuration(s)
		if err != nil {
			return err
		}
		v.SetInt(int64(d))
	case v.Kind() == reflect.String:
		v.SetString(s)
	case v.Kind() == reflect.Bool:
		b, err := strconv.ParseBool(s)
		if err != nil {
			return configfile.Errorf("must be true or false, not %q", s)
		}
		v.SetBool(b)
	case v.Kind() == reflect.Int:
		i, err := strconv.Atoi(s)
		if err != nil {
			return configfile.Errorf("must be a whole number, not %q", s)
		}
		v.SetInt(int64(i))
	case v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.String:
		var items []string
		for _, item := range strings.Split(s, ",") {
			if item = strings.TrimSpace(item); item != "" {
				items = append(items, item)
			}
		}
		v.Set(reflect.ValueOf(items))
	case v.Kind() == reflect.Map && v.Type().Key().Kind() == reflect.String && v.Type().Elem().Kind() == reflect.String:
		m := map[string]string{}
		for _, item := range strings.Split(s, ",") {
			if item = strings.TrimSpace(item); item == "" {
				continue
			}
			k, val, ok := strings.Cut(item, "=")
			if !ok {
				return configfile.Errorf("must be Name=value pairs separated by commas, not %q", item)
			}
			m[strings.TrimSpace(k)] = strings.TrimSpace(val)
		}
		v.Set(reflect.ValueOf(m))
	case v.Kind() == reflect.Float64:
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return configfile.Errorf("must be a number, not %q", s)
		}
		v.SetFloat(f)
	default:
		return configfile.Errorf("cannot be set from the environment")
	}
	return nil
}
