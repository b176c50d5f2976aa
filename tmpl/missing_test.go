package tmpl

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestTemplateMissingValueFails: an action that would print a missing or
// null value ("<no value>" in text/template) fails naming the template, its
// line and what was read; a template that says what to do keeps working.
func TestTemplateMissingValueFails(t *testing.T) {
	data := map[string]any{
		"releaseVersion": nil, // an optional param with no value
		"clusterName":    "c1",
		"cluster":        map[string]any{"spec": map[string]any{"zone": nil}, "name": "c1"},
		"list":           []any{nil},
	}
	fails := []struct{ src, want string }{
		{`release: "{{ .releaseVersion }}"`, ".releaseVersion"},
		{"a\n{{ .releaseVersion }}", "f.yaml:2:"},
		{`{{ .cluster.spec.zone }}`, ".cluster.spec.zone"},
		{`{{ $.releaseVersion }}`, "$.releaseVersion"},
		{`{{ index .cluster "nope" }}`, `index .cluster "nope"`},
		{`{{ index .list 0 }}`, "index .list 0"},
		{`{{ with .cluster }}{{ .spec.zone }}{{ end }}`, ".spec.zone"},
		{`{{ range .list }}{{ . }}{{ end }}`, "{{ . }}"},
		{`{{ $v := .releaseVersion }}{{ $v }}`, "$v"},
		{`{{ define "x" }}{{ .releaseVersion }}{{ end }}{{ template "x" . }}`, ".releaseVersion"},
	}
	for _, tt := range fails {
		t.Run(tt.src, func(t *testing.T) {
			tp, err := Parse("f.yaml", tt.src)
			if err != nil {
				t.Fatal(err)
			}
			got, err := tp.Execute(data, time.Time{})
			if err == nil {
				t.Fatalf("Execute = %q, want an error: a missing value must not render", got)
			}
			for _, w := range []string{tt.want, "f.yaml", "has no value"} {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not name %q", err, w)
				}
			}
		})
	}
	works := []struct{ src, want string }{
		{`{{ .releaseVersion | default "4.1" }}`, "4.1"},
		{`{{ default "4.1" .releaseVersion }}`, "4.1"},
		{`{{ if .releaseVersion }}{{ .releaseVersion }}{{ else }}none{{ end }}`, "none"},
		{`{{ with .releaseVersion }}{{ . }}{{ else }}none{{ end }}`, "none"},
		{`{{ .clusterName }}`, "c1"},
		{`{{ $v := .releaseVersion }}ok`, "ok"},
		{`{{ .releaseVersion | toJson }}`, "null"},
		{`{{ 0 }}{{ false }}{{ "" }}`, "0false"},
	}
	for _, tt := range works {
		t.Run(tt.src, func(t *testing.T) {
			tp, err := Parse("f.yaml", tt.src)
			if err != nil {
				t.Fatal(err)
			}
			got, err := tp.Execute(data, time.Time{})
			if err != nil || got != tt.want {
				t.Fatalf("Execute = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestTemplateMissingValueMessage(t *testing.T) {
	tp, _ := Parse("adapter-task-config.yaml:resources[0].manifest.data.release", "v-{{ .releaseVersion }}")
	_, err := tp.Execute(map[string]any{"releaseVersion": nil}, time.Time{})
	want := "template: adapter-task-config.yaml:resources[0].manifest.data.release:1:5: {{ .releaseVersion }} has no value"
	if err == nil || !strings.HasPrefix(err.Error(), want) || !errors.Is(err, ErrMissingValue) {
		t.Fatalf("error = %v, want it to start %q and be ErrMissingValue", err, want)
	}
}
