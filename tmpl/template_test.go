package tmpl

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

var tmplTestNow = time.Date(2025, 3, 4, 5, 6, 7, 0, time.FixedZone("X", 2*3600))

func TestParseTemplateLiteral(t *testing.T) {
	tests := []struct {
		src     string
		literal bool
	}{
		{"", true},
		{"plain text", true},
		{"a { b } c}}", true},
		{"{{ .x }}", false},
		{"x-{{- .x -}}-y", false},
		{"{{/* comment */}}", false},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			tmpl, err := Parse("p", tt.src)
			if err != nil {
				t.Fatal(err)
			}
			if tmpl.IsLiteral() != tt.literal {
				t.Fatalf("IsLiteral() = %v, want %v", tmpl.IsLiteral(), tt.literal)
			}
			if tmpl.Source() != tt.src {
				t.Fatalf("Source() = %q", tmpl.Source())
			}
			if tt.literal {
				// nil data: a literal never runs the engine
				got, err := tmpl.Execute(nil, time.Time{})
				if err != nil || got != tt.src {
					t.Fatalf("Execute = %q, %v; want the source", got, err)
				}
			}
		})
	}
}

func TestTemplateFunctions(t *testing.T) {
	data := map[string]any{
		"clusterId": "Cluster-ABC",
		"empty":     "",
		"zero":      0,
		"gen":       float64(1000000),
		"ratio":     0.5,
		"list":      []any{"a", 1, true},
		"strs":      []string{"x", "y"},
		"obj":       map[string]any{"b": "<&>", "a": 1},
		"num":       "42",
		"when":      time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC),
	}
	tests := []struct {
		name, src, want string
	}{
		{"lower", `{{ .clusterId | lower }}`, "cluster-abc"},
		{"upper", `{{ upper .clusterId }}`, "CLUSTER-ABC"},
		{"title", `{{ title "hello wide-world o'neil" }}`, "Hello Wide-World O'neil"},
		{"title lower-cases the rest (hyperfleet-adapter's title)", `{{ title "hELLO wORLD" }}`, "Hello World"},
		{"trim", `{{ trim "  x y \n" }}`, "x y"},
		{"trimPrefix", `{{ trimPrefix .clusterId "Cluster-" }}`, "ABC"},
		{"trimSuffix", `{{ trimSuffix .clusterId "-ABC" }}`, "Cluster"},
		{"replace", `{{ replace .clusterId "-" "_" }}`, "Cluster_ABC"},
		{"contains", `{{ contains .clusterId "ABC" }} {{ contains .clusterId "zzz" }}`, "true false"},
		{"hasPrefix", `{{ hasPrefix .clusterId "Clu" }}`, "true"},
		{"hasSuffix", `{{ hasSuffix .clusterId "Clu" }}`, "false"},
		{"quote", `{{ quote .clusterId }} {{ quote "a\"b" 3 }}`, `"Cluster-ABC" "a\"b" "3"`},
		{"default used", `{{ default "dflt" .empty }}`, "dflt"},
		{"default keeps zero (hyperfleet-adapter's default)", `{{ default 7 .zero }}`, "0"},
		{"default kept", `{{ .clusterId | default "dflt" }}`, "Cluster-ABC"},
		{"default absent via index", `{{ default "dflt" (index . "nope") }}`, "dflt"},
		{"toJson", `{{ toJson .obj }}`, `{"a":1,"b":"<&>"}`},
		{"toJson list", `{{ toJson .list }}`, `["a",1,true]`},
		{"b64enc", `{{ b64enc "hello" }}`, "aGVsbG8="},
		{"b64dec", `{{ b64dec "aGVsbG8=" }}`, "hello"},
		{"int", `{{ int .num }} {{ int .gen }} {{ int 3.9 }} {{ int "2.5" }}`, "42 1000000 3 2"},
		{"float", `{{ float .num }} {{ float "0.25" }}`, "42 0.25"},
		{"toString", `{{ toString .gen }} {{ toString .ratio }} {{ toString nil }}|{{ toString true }}`, "1000000 0.5 |true"},
		{"join", `{{ join "," .list }} {{ join "/" .strs }}`, "a,1,true x/y"},
		{"split", `{{ range split "," "a,b,c" }}[{{ . }}]{{ end }}`, "[a][b][c]"},
		{"split index", `{{ index (split "-" .clusterId) 1 }}`, "ABC"},
		{"now", `{{ now.Unix }}`, fmt.Sprint(tmplTestNow.Unix())},
		{"date now", `{{ now | date "2006-01-02T15:04:05Z07:00" }}`, "2025-03-04T05:06:07+02:00"},
		{"date value", `{{ date "2006-01-02" .when }}`, "2020-01-02"},
		{"dateFormat", `{{ dateFormat "2006-01-02T15:04" .when }} {{ now | dateFormat "15:04" }}`, "2020-01-02T03:04 05:06"},
		{"int64", `{{ int64 .num }} {{ int64 .gen }}`, "42 1000000"},
		{"float64", `{{ float64 .num }} {{ float64 "0.25" }}`, "42 0.25"},
		{"string", `{{ string .gen }} {{ string .num }} {{ string .zero }} {{ string .list }}`, "1e+06 42 0 [a 1 true]"},
		{"builtins", `{{ printf "%s-%d" .clusterId 3 }} {{ eq .num "42" }} {{ len .list }}`, "Cluster-ABC-3 true 3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tmpl, err := Parse(tt.name, tt.src)
			if err != nil {
				t.Fatal(err)
			}
			got, err := tmpl.Execute(data, tmplTestNow)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestTemplateFunctionErrors(t *testing.T) {
	tests := []struct {
		src, wantErr string
	}{
		{`{{ int "abc" }}`, `int: cannot convert "abc"`},
		{`{{ float "x" }}`, `float: cannot convert "x"`},
		{`{{ b64dec "!!" }}`, "b64dec:"},
		{`{{ date "2006" "yesterday" }}`, "date: string is not a time"},
		{`{{ join "," 3 }}`, "join: int is not a list"},
		{`{{ default "x" .missing }}`, `map has no entry for key "missing"`},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			tmpl, err := Parse("f", tt.src)
			if err != nil {
				t.Fatal(err)
			}
			_, err = tmpl.Execute(map[string]any{}, tmplTestNow)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error = %v, want it to contain %q", err, tt.wantErr)
			}
		})
	}
}

func TestExecuteMissingParamNamesIt(t *testing.T) {
	tmpl, err := Parse("resources[0].manifest.metadata.name", "{{ .clusterId }}-x")
	if err != nil {
		t.Fatal(err)
	}
	for _, data := range []map[string]any{nil, {}, {"other": 1}} {
		_, err := tmpl.Execute(data, tmplTestNow)
		if err == nil {
			t.Fatalf("data %v: no error", data)
		}
		for _, want := range []string{`"clusterId"`, "resources[0].manifest.metadata.name"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("data %v: error %q does not contain %s", data, err, want)
			}
		}
	}
}

// Templates cannot reach the environment, files or the network: functions
// that would (sprig's env, expandenv, readFile, getHostByName, ...) do not
// exist, so using one is a load error naming it.
func TestNoEnvOrFileAccess(t *testing.T) {
	for _, fn := range []string{"env", "expandenv", "readFile", "getHostByName", "osEnv", "exec", "include", "tpl", "lookup", "required"} {
		t.Run(fn, func(t *testing.T) {
			_, err := Parse("p", fmt.Sprintf(`{{ %s "HOME" }}`, fn))
			if err == nil {
				t.Fatalf("%s is callable", fn)
			}
			if want := fmt.Sprintf("function %q not defined", fn); !strings.Contains(err.Error(), want) {
				t.Fatalf("error %q does not name the function", err)
			}
		})
	}
}

// The function set is exactly the documented one; adding a function must
// be a deliberate change to this list and to the godoc in funcs.go.
func TestTemplateFuncNames(t *testing.T) {
	want := []string{
		"b64dec", "b64enc", "contains", "date", "dateFormat", "default", "float", "float64",
		"hasPrefix", "hasSuffix", "int", "int64", "join", "lower", "now", "quote", "replace",
		"split", "string", "title", "toJson", "toString", "trim", "trimPrefix", "trimSuffix", "upper",
	}
	if got := FuncNames(); !slices.Equal(got, want) {
		t.Fatalf("FuncNames() = %v\nwant %v", got, want)
	}
}

func TestNowIsInjectedWherever(t *testing.T) {
	tests := []struct {
		name, src string
		usesNow   bool
	}{
		{"none", `{{ .x }}`, false},
		{"field named now", `{{ .now }}`, false},
		{"action", `{{ now.Year }}`, true},
		{"pipe", `{{ now | date "2006" }}`, true},
		{"paren", `{{ (now).Year }}`, true},
		{"if", `{{ if now }}{{ now.Year }}{{ end }}`, true},
		{"else", `{{ if .no }}x{{ else }}{{ now.Year }}{{ end }}`, true},
		{"with", `{{ with .x }}{{ date "2006" now }}{{ end }}`, true},
		{"range", `{{ range .l }}{{ now.Year }}{{ end }}`, true},
		{"define", `{{ define "t" }}{{ now.Year }}{{ end }}{{ template "t" }}`, true},
		{"var", `{{ $t := now }}{{ $t.Year }}`, true},
	}
	data := map[string]any{"x": "v", "now": "field", "no": false, "l": []any{1}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tmpl, err := Parse(tt.name, tt.src)
			if err != nil {
				t.Fatal(err)
			}
			if tmpl.usesNow != tt.usesNow {
				t.Fatalf("usesNow = %v, want %v", tmpl.usesNow, tt.usesNow)
			}
			got, err := tmpl.Execute(data, tmplTestNow)
			if err != nil {
				t.Fatal(err)
			}
			if tt.usesNow && got != "2025" {
				t.Fatalf("got %q, want the injected year 2025", got)
			}
		})
	}
}

// The base function map's now never reads the real clock: it fails.
func TestNowGuardFails(t *testing.T) {
	if _, err := tmplNowGuard(); err == nil {
		t.Fatal("now without injection did not fail")
	}
}

// Execute is safe for concurrent use and every caller sees its own clock.
func TestExecuteConcurrentNow(t *testing.T) {
	tmpl, err := Parse("c", `{{ .id }}@{{ now.Unix }}`)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := Parse("p", `{{ .id | upper }}`)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				now := time.Unix(int64(g*1000+i), 0)
				id := fmt.Sprintf("g%d", g)
				got, err := tmpl.Execute(map[string]any{"id": id}, now)
				if want := fmt.Sprintf("%s@%d", id, now.Unix()); err != nil || got != want {
					errs <- fmt.Errorf("got %q, %v; want %q", got, err, want)
					return
				}
				if got, err := plain.Execute(map[string]any{"id": id}, now); err != nil || got != strings.ToUpper(id) {
					errs <- fmt.Errorf("plain got %q, %v", got, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestParseTemplateErrorNamesPath(t *testing.T) {
	_, err := Parse("resources[2].manifest.metadata.name", "{{ .x ")
	if err == nil || !strings.Contains(err.Error(), "resources[2].manifest.metadata.name") {
		t.Fatalf("error = %v, want it to name the path", err)
	}
}

func BenchmarkExecute(b *testing.B) {
	tmpl, _ := Parse("b", `validate-{{ .clusterId | lower }}`)
	nowTmpl, _ := Parse("n", `{{ now | date "2006-01-02T15:04:05Z07:00" }}`)
	data := map[string]any{"clusterId": "ABC"}
	b.Run("plain", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := tmpl.Execute(data, tmplTestNow); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("now", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := nowTmpl.Execute(data, tmplTestNow); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestTemplateStringFuncsAnchorOrder: the string functions take the string
// first, as hyperfleet-adapter's (Go's strings package order), and a call
// written in the sprig order (string last, or piped) fails at parse naming
// the function and the order, instead of rendering another string.
func TestTemplateStringFuncsAnchorOrder(t *testing.T) {
	data := map[string]any{"name": "x-cluster-x", "prefix": "x-"}
	ok := []struct{ src, want string }{
		{`{{ trimPrefix .name "x-" }}`, "cluster-x"},
		{`{{ trimSuffix .name "-x" }}`, "x-cluster"},
		{`{{ replace .name "x" "y" }}`, "y-cluster-y"},
		{`{{ contains .name "clu" }}`, "true"},
		{`{{ hasPrefix .name "x-" }}`, "true"},
		{`{{ hasSuffix .name "x-" }}`, "false"},
		{`{{ trimPrefix .name .prefix }}`, "cluster-x"},
		{`{{ if hasPrefix .name .prefix }}yes{{ end }}`, "yes"},
		{`{{ replace .name "x" "y" | upper }}`, "Y-CLUSTER-Y"},
		{`{{ contains "abc" "b" }}`, "true"},
	}
	for _, tt := range ok {
		tmpl, err := Parse("t", tt.src)
		if err != nil {
			t.Fatalf("%s: %v", tt.src, err)
		}
		got, err := tmpl.Execute(data, tmplTestNow)
		if err != nil || got != tt.want {
			t.Errorf("%s = %q, %v; want %q", tt.src, got, err, tt.want)
		}
	}
	bad := []struct{ src, want string }{
		{`{{ .name | trimPrefix "x-" }}`, "trimPrefix takes the string first (trimPrefix s prefix"},
		{`{{ .name | replace "x" "y" }}`, "replace s old new"},
		{`{{ upper .name | hasSuffix "X" }}`, "hasSuffix takes the string first"},
		{`{{ contains "clu" .name }}`, "contains takes the string first (contains s substr"},
		{`{{ replace "x" "y" .name }}`, "sprig order"},
		{`{{ if hasPrefix "x-" .name }}y{{ end }}`, "hasPrefix s prefix"},
		{`{{ range .l }}{{ trimSuffix "-x" . }}{{ end }}`, "trimSuffix s suffix"},
		{`{{ printf "%s" (hasSuffix "x" .name) }}`, "hasSuffix"},
	}
	for _, tt := range bad {
		_, err := Parse("t", tt.src)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one containing %q", tt.src, err, tt.want)
		}
	}
}
