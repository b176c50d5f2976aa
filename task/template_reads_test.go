package task

import (
	"fmt"
	"github.com/bundle-adapter/bundle-adapter/tmpl"
	"testing"
)

func TestTemplateReads(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want string // fmt of the paths; "no" when Reads is not ok
	}{
		{src: "literal", want: "[]"},
		{src: "{{ .a }}", want: "[[a]]"},
		{src: "{{ .a.b.c }}-{{ .a.b }}", want: "[[a b c] [a b]]"},
		{src: "{{ .a }}{{ .a }}", want: "[[a]]"},
		{src: "{{ $.a.b }}", want: "[[a b]]"},
		{src: `{{ .a | lower }}{{ replace .b "x" "y" }}`, want: "[[a] [b]]"},
		{src: "{{ with .a }}{{ .b }}{{ $.c }}{{ else }}{{ .d }}{{ end }}", want: "[[a] [c] [d]]"},
		{src: "{{ range $i, $z := .zones }}{{ $z }}{{ .x }}{{ end }}", want: "[[zones]]"},
		{src: "{{ range .zones }}{{ . }}{{ else }}{{ .none }}{{ end }}", want: "[[zones] [none]]"},
		{src: "{{ if .a }}{{ .b }}{{ else if .c }}{{ .d }}{{ end }}", want: "[[a] [b] [c] [d]]"},
		{src: `{{ index .labels "tier" | default "x" }}`, want: "[[labels]]"},
		{src: "{{ $v := .a.b }}{{ $v.c }}", want: "[[a b]]"},
		{src: "{{ (.a).b }}", want: "[[a]]"},
		{src: "{{ printf `%v` (len .items) }}", want: "[[items]]"},
		{src: "{{/* comment */}}{{ .a }}", want: "[[a]]"},
		{src: "{{ range .xs }}{{ if . }}{{ break }}{{ end }}{{ end }}", want: "[[xs]]"},
		// What paths cannot describe.
		{src: "{{ . }}", want: "no"},
		{src: "{{ toJson . }}", want: "no"},
		{src: `{{ index . "a" }}`, want: "no"},
		{src: "{{ $ }}", want: "no"},
		{src: "{{ range .xs }}{{ toJson $ }}{{ end }}", want: "no"},
		{src: "{{ with .a }}{{ else }}{{ . }}{{ end }}", want: "no"},
		{src: `{{ now | date "2006" }}`, want: "no"},
		{src: `{{ define "x" }}{{ .a }}{{ end }}{{ template "x" . }}`, want: "no"},
	} {
		tp, err := tmpl.Parse("t", tc.src)
		if err != nil {
			t.Fatalf("%s: %v", tc.src, err)
		}
		paths, ok := tp.Reads()
		got := "no"
		if ok {
			got = fmt.Sprint(paths)
			if paths == nil {
				got = "[]"
			}
		}
		if got != tc.want {
			t.Errorf("%s: Reads %s, want %s", tc.src, got, tc.want)
		}
	}
}

func TestManifestReads(t *testing.T) {
	m, err := CompileManifestFile("m.yaml", []byte(`
metadata: {name: "{{ .id }}-x", labels: {a: "{{ .cluster.region }}"}}
spec: {workload: {manifests: [{kind: ConfigMap, data: {id: "{{ .id }}", g: "{{ .generation }}"}}]}}
`))
	if err != nil {
		t.Fatal(err)
	}
	paths, ok := m.Reads()
	if !ok || fmt.Sprint(paths) != "[[cluster region] [id] [generation]]" {
		t.Errorf("Reads = %v, %v; want [[cluster region] [id] [generation]], true", paths, ok)
	}
	clock, err := CompileManifestFile("c.yaml", []byte(`
metadata: {name: "{{ .id }}"}
data: {t: '{{ now | date "2006" }}'}
`))
	if err != nil {
		t.Fatal(err)
	}
	if paths, ok := clock.Reads(); ok {
		t.Errorf("a manifest calling now: Reads = %v, true; want false", paths)
	}
	whole, err := CompileManifestFile("w.yaml", []byte("metadata:\n  name: x\n{{ range .items }}\n  {{ . }}: v\n{{ end }}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if whole.Whole == nil {
		t.Fatal("want the Whole form")
	}
	if paths, ok := whole.Reads(); !ok || fmt.Sprint(paths) != "[[items]]" {
		t.Errorf("Whole manifest: Reads = %v, %v; want [[items]], true", paths, ok)
	}
}
