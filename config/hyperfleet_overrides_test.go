package config

import (
	"bufio"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/bundle-adapter/bundle-adapter/internal/configfile"
	"github.com/spf13/pflag"
)

type override struct{ flag, env, path, value, want string }

func readOverrides(t *testing.T) []override {
	t.Helper()
	f, err := os.Open("testdata/hyperfleet/overrides.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []override
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		p := strings.Split(line, "|")
		for i := range p {
			p[i] = strings.TrimSpace(p[i])
		}
		out = append(out, override{p[0], p[1], p[2], p[3], p[4]})
	}
	return out
}

// leafString reads the leaf at a YAML path as text, for comparison.
func leafString(cfg *AdapterConfig, path string) string {
	v := reflect.ValueOf(cfg).Elem()
	for _, key := range strings.Split(path, ".") {
		if v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return "<nil>"
			}
			v = v.Elem()
		}
		v = v.FieldByIndex(configfile.StructFields(v.Type())[key])
	}
	if v.Type() == configfile.DurationType {
		return configfile.Duration(v.Int()).String()
	}
	return fmt.Sprint(v.Interface())
}

// Every flag and environment variable HyperFleet's adapter documents sets
// the same adapter-config leaf here, so its command lines and Deployment
// env carry over unchanged.
func TestHyperFleetFlagsAndEnv(t *testing.T) {
	for _, o := range readOverrides(t) {
		t.Run(o.path, func(t *testing.T) {
			t.Setenv(o.env, o.value)
			cfg, err := LoadAdapterConfig("examples/onprem/adapter-config.yaml", nil)
			if err != nil && !strings.Contains(err.Error(), "tls") { // auth.type tls alone lacks a CA
				t.Fatalf("env %s: %v", o.env, err)
			}
			if cfg != nil {
				if got := leafString(cfg, o.path); got != o.want {
					t.Errorf("env %s=%s: %s = %q, want %q", o.env, o.value, o.path, got, o.want)
				}
			}
			if o.flag == "-" {
				return
			}
			os.Unsetenv(o.env)
			fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
			RegisterAdapterFlags(fs)
			if err := fs.Parse([]string{"--" + o.flag + "=" + o.value}); err != nil {
				t.Fatalf("flag --%s: %v", o.flag, err)
			}
			cfg, err = LoadAdapterConfig("examples/onprem/adapter-config.yaml", fs)
			if err != nil && !strings.Contains(err.Error(), "tls") {
				t.Fatalf("flag --%s: %v", o.flag, err)
			}
			if cfg != nil {
				if got := leafString(cfg, o.path); got != o.want {
					t.Errorf("flag --%s=%s: %s = %q, want %q", o.flag, o.value, o.path, got, o.want)
				}
			}
		})
	}
}
