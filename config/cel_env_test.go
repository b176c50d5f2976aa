package config

import (
	"github.com/bundle-adapter/bundle-adapter/celenv"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// env in CEL and templates either works or fails at load (issue 12, item
// 3): only env.NAME reads are allowed, and a required one must be set.
func TestEnvReadsAtLoad(t *testing.T) {
	t.Setenv("BA_SET", "v")
	os.Unsetenv("BA_UNSET")
	tests := []struct {
		name, expr, tmpl, wantErr string
		wantVars                  []celenv.EnvVar
	}{
		{name: "set", expr: `env.BA_SET`, wantVars: []celenv.EnvVar{{Name: "BA_SET", Required: true}}},
		{name: "optional unset", expr: `env.?BA_UNSET.orValue("d")`, wantVars: []celenv.EnvVar{{Name: "BA_UNSET"}}},
		{name: "has unset", expr: `has(env.BA_UNSET) ? env.?BA_UNSET.orValue("") : ""`, wantVars: []celenv.EnvVar{{Name: "BA_UNSET"}}},
		{name: "required unset", expr: `env.BA_UNSET`, wantErr: "env.BA_UNSET: the environment variable BA_UNSET is not set"},
		{name: "index", expr: `env["BA_SET"]`, wantErr: "env can only be read as env.NAME"},
		{name: "whole", expr: `toJson(env)`, wantErr: "env can only be read as env.NAME"},
		{name: "dynamic optional", expr: `env[?"BA_SET"].orValue("")`, wantErr: "env can only be read as env.NAME"},
		{name: "template set", tmpl: `{{ .env.BA_SET }}`, wantVars: []celenv.EnvVar{{Name: "BA_SET", Required: true}}},
		{name: "template root", tmpl: `{{ range .l }}{{ $.env.BA_SET }}{{ end }}`, wantVars: []celenv.EnvVar{{Name: "BA_SET", Required: true}}},
		{name: "template unset", tmpl: `{{ .env.BA_UNSET }}`, wantErr: "the environment variable BA_UNSET is not set"},
		{name: "template whole", tmpl: `{{ toJson .env }}`, wantErr: "template reads .env as a whole"},
		{name: "template index", tmpl: `{{ index .env "BA_SET" }}`, wantErr: "template reads .env as a whole"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			expr, tmpl := "1", "x"
			if tt.expr != "" {
				expr = tt.expr
			}
			if tt.tmpl != "" {
				tmpl = tt.tmpl
			}
			src := "params:\n  - {name: l, source: {expression: '[1]'}}\n  - name: p\n    source: {expression: " + yamlQuote(expr) + "}\n" +
				"post:\n  payloads:\n    - name: s\n      build:\n        a: " + yamlQuote(tmpl) + "\n"
			file := filepath.Join(t.TempDir(), "task.yaml")
			if err := os.WriteFile(file, []byte(src), 0o600); err != nil {
				t.Fatal(err)
			}
			c, err := LoadTaskConfig(file)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := c.CEL.EnvVars()
			if len(got) != len(tt.wantVars) {
				t.Fatalf("EnvVars = %+v, want %+v", got, tt.wantVars)
			}
			for i, v := range got {
				if v.Name != tt.wantVars[i].Name || v.Required != tt.wantVars[i].Required {
					t.Errorf("EnvVars[%d] = %+v, want %+v", i, v, tt.wantVars[i])
				}
			}
		})
	}
}

func yamlQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
