package task

import (
	"context"
	"github.com/bundle-adapter/bundle-adapter/internal/configfile"
	"github.com/bundle-adapter/bundle-adapter/tmpl"
	"testing"
	"time"
)

// fuzzTemplateData is sample data of the shapes events bring: strings,
// numbers, lists, maps.
var fuzzTemplateData = map[string]any{
	"clusterId": "c1", "generation": int64(3), "n": int64(1e10), "s": `a\"b`,
	"l":     []any{"x", int64(1), 2.5, true, nil},
	"m":     map[string]any{"k": "v", "n": []any{"y"}},
	"event": map[string]any{"id": "c1", "kind": "Cluster"},
}

// fuzzTemplateWait bounds one execution: the context stops it after a
// second; the budget leaves it a few steps more.
const fuzzTemplateWait = 20 * time.Second

// FuzzTemplate parses, checks and executes arbitrary template text with
// a budget: no input may panic, run past the budget or write past
// tmpl.MaxOutputBytes.
func FuzzTemplate(f *testing.F) {
	for _, s := range []string{
		`{{ .clusterId | lower }}-{{ .generation }}`,
		`{{ range $i, $e := .l }}{{ $i }}={{ toJson $e }},{{ end }}`,
		`{{ define "a" }}{{ . }}{{ end }}{{ range .l }}{{ template "a" . }}{{ end }}`,
		`{{ range .n }}{{ end }}`,
		`{{ printf "%0*d" 100000000 1 }}`,
		`{{ with .m }}{{ .k }}{{ $.s | quote }}{{ end }}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		tm, err := tmpl.Parse("fuzz", src)
		if err != nil {
			return
		}
		var l configfile.ErrorList
		tmpl.CheckNames(&l, tm, []string{"clusterId", "generation", "event"})
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		start := time.Now()
		out, err := tm.ExecuteContext(ctx, fuzzTemplateData, probeTime)
		if took := time.Since(start); took > fuzzTemplateWait {
			t.Fatalf("ran %v, past its budget (err %v)", took, err)
		}
		if len(out) > tmpl.MaxOutputBytes {
			t.Fatalf("wrote %d bytes, over tmpl.MaxOutputBytes", len(out))
		}
		if err != nil && out != "" {
			t.Fatalf("output %q together with error %v", out, err)
		}
	})
}
