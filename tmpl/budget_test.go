package tmpl

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
)

// tmplBombWait is how long a hostile template may take before the test
// calls it a hang. The budget stops each of them in well under a second;
// the old code ran them for minutes (or forever).
const tmplBombWait = 20 * time.Second

// tmplBombAlloc bounds what one hostile template may allocate in all
// (garbage included: encoding/json copies a result about four times): the
// function result cap (4 MiB) a few times over, never the gigabyte the
// bombs asked for.
const tmplBombAlloc = 96 << 20

// nest wraps inner in n levels of fn: nest("f", 2, "x") = f (f x).
func nest(fn string, n int, inner string) string {
	for range n {
		inner = "(" + fn + " " + inner + ")"
	}
	return inner
}

// chainSrc is a define/template chain of the given depth in which every
// level calls the next one twice: 2^depth calls in all.
func chainSrc(depth int) string {
	var b strings.Builder
	for i := range depth {
		fmt.Fprintf(&b, `{{ define "l%d" }}{{ template "l%d" . }}{{ template "l%d" . }}{{ end }}`, i, i+1, i+1)
	}
	fmt.Fprintf(&b, `{{ define "l%d" }}{{ end }}{{ template "l0" . }}`, depth)
	return b.String()
}

// tmplRunBounded parses and executes src in a goroutine and reports what
// happened, or that it did not finish within tmplBombWait.
func tmplRunBounded(t *testing.T, src string, data map[string]any) (out string, err error, alloc uint64) {
	t.Helper()
	type result struct {
		out   string
		err   error
		alloc uint64
	}
	done := make(chan result, 1)
	go func() {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		var r result
		tm, perr := Parse("bomb", src)
		if perr != nil {
			r.err = perr
		} else {
			r.out, r.err = tm.Execute(data, tmplTestNow)
		}
		runtime.ReadMemStats(&after)
		r.alloc = after.TotalAlloc - before.TotalAlloc
		done <- r
	}()
	select {
	case r := <-done:
		return r.out, r.err, r.alloc
	case <-time.After(tmplBombWait):
		t.Fatalf("the template did not finish within %v", tmplBombWait)
	}
	return "", nil, 0
}

// Hostile templates (issue 14, items 7 and 8) fail with an error naming the
// bound they hit, fast and without allocating past the caps, instead of
// hanging a worker or allocating gigabytes.
func TestTemplateBombsAreBounded(t *testing.T) {
	backslashes := strings.Repeat(`\`, 1000)
	big := strings.Repeat("x", 3<<20)
	tests := []struct {
		name string
		src  string
		data map[string]any
		want string // in the error
		hang bool   // a loop: its garbage is not what the row is about
	}{
		{"range over a huge literal", `{{ range 10000000000 }}{{ end }}`, nil, "step budget", true},
		{"range over a huge param", `{{ range .n }}{{ end }}`, map[string]any{"n": int64(1e10)}, "step budget", true},
		{"nested ranges over data", `{{ range .l }}{{ range $.l }}{{ range $.l }}{{ end }}{{ end }}{{ end }}`,
			map[string]any{"l": make([]any, 2000)}, "step budget", true},
		{"define chain calling itself twice per level", chainSrc(40), nil, "template calls", true},
		{"recursion", `{{ define "a" }}{{ template "a" . }}{{ end }}{{ template "a" . }}`, nil, "calls itself", true},
		{"nested replace", `{{ ` + strings.Repeat(`replace (`, 8) + `"x"` + strings.Repeat(`) "x" "xxxxxxxxxx"`, 8) + ` }}`, nil, "replace", false},
		{"nested toJson", `{{ ` + nest("toJson", 15, ".s") + ` }}`, map[string]any{"s": backslashes}, "toJson", false},
		{"printf width", `{{ printf "%0100000000d" 1 }}`, nil, "printf", false},
		{"quote of a big value", `{{ quote .big .big }}`, map[string]any{"big": big}, "quote", false},
		{"join of big values", `{{ join "," .l }}`, map[string]any{"l": []any{big, big}}, "join", false},
		{"b64enc of a big value", `{{ b64enc (print .big .big) }}`, map[string]any{"big": big}, "print", false},
		{"split into runes", `{{ len (split "" .big) }}`, map[string]any{"big": big}, "split", false},
		{"js escape", `{{ js .big }}`, map[string]any{"big": strings.Repeat("<", 1<<20)}, "js", false},
		{"work past the budget in small pieces", `{{ range 100000 }}{{ $x := replace $.big "x" "y" }}{{ end }}`,
			map[string]any{"big": "x" + strings.Repeat("y", 3<<20)}, "work budget", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err, alloc := tmplRunBounded(t, tt.src, tt.data)
			if err == nil {
				t.Fatalf("got %d bytes and no error; want an error naming %q", len(out), tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not name %q", err, tt.want)
			}
			if !tt.hang && alloc > tmplBombAlloc {
				t.Errorf("allocated %d MiB, want at most %d MiB", alloc>>20, tmplBombAlloc>>20)
			}
		})
	}
}

// A cancelled context stops an execution at its next step: a worker that
// gives up on a render (event timeout, shutdown) gets its goroutine back.
func TestExecuteContextStops(t *testing.T) {
	tm, err := Parse("slow", `{{ range .n }}{{ range $.n }}x{{ end }}{{ end }}`)
	if err != nil {
		t.Fatal(err)
	}
	// 900x900 iterations stay under the step budget (so only the context
	// can stop the execution) and take far longer than the 5ms deadline:
	// with n 1000 the budget and the deadline raced on a fast machine.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := tm.ExecuteContext(ctx, map[string]any{"n": 900}, tmplTestNow)
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err = %v, want the context's deadline", err)
		}
	case <-time.After(tmplBombWait):
		t.Fatal("the execution did not stop")
	}
}

// Legitimate templates are untouched by the budget: ranges, nested
// defines, every function.
func TestTemplateBudgetAllowsOrdinaryTemplates(t *testing.T) {
	tests := []struct{ src, want string }{
		{`{{ range 3 }}a{{ end }}`, "aaa"},
		{`{{ range $i, $e := .l }}{{ $i }}{{ $e }}{{ end }}`, "0x1y"},
		{chainSrc(10) + "ok", "ok"},
		{`{{ define "x" }}[{{ . }}]{{ end }}{{ range .l }}{{ template "x" . }}{{ end }}`, "[x][y]"},
		{`{{ replace .s "a" "bb" | upper }}`, "BBC"},
		{`{{ printf "%05d-%s" 7 .s }}`, "00007-ac"},
		{`{{ toJson .l }}`, `["x","y"]`},
		{`{{ js "<a>" }}{{ html "<" }}{{ urlquery "a b" }}{{ print 1 2 }}{{ println "z" }}`, `\u003Ca\u003E&lt;a+b1 2z` + "\n"},
	}
	data := map[string]any{"l": []any{"x", "y"}, "s": "ac"}
	for _, tt := range tests {
		tm, err := Parse("ok", tt.src)
		if err != nil {
			t.Fatalf("%s: %v", tt.src, err)
		}
		if got, err := tm.Execute(data, tmplTestNow); err != nil || got != tt.want {
			t.Errorf("%s = %q, %v; want %q", tt.src, got, err, tt.want)
		}
	}
}

// Each template function refuses a result past the cap before building
// it, naming itself and the limit.
func TestTemplateFuncsCheckSizeFirst(t *testing.T) {
	big := strings.Repeat("ab", MaxFuncBytes/2)
	tests := []struct {
		name string
		call func() error
	}{
		{"replace", func() error { _, err := tmplReplace(big, "a", "aa"); return err }},
		{"upper", func() error { _, err := tmplUpper(big + big); return err }},
		{"toJson", func() error { _, err := tmplToJSON([]any{big, big}); return err }},
		{"b64enc", func() error { _, err := tmplB64Enc(big); return err }},
		{"quote", func() error { _, err := tmplQuote(big); return err }},
		{"join", func() error { _, err := tmplJoin("", []string{big, big}); return err }},
		{"date", func() error { _, err := tmplDate(big, tmplTestNow); return err }},
		{"string", func() error { _, err := tmplString(big + big); return err }},
	}
	for _, tt := range tests {
		err := tt.call()
		if err == nil || !strings.Contains(err.Error(), tt.name) || !strings.Contains(err.Error(), fmt.Sprint(MaxFuncBytes)) {
			t.Errorf("%s: err = %v, want one naming the function and the limit", tt.name, err)
		}
	}
}

// A template cannot make the adapter build an unbounded string: output past
// MaxOutputBytes stops the execution with an error naming the
// template and the limit.
func TestTemplateOutputIsBounded(t *testing.T) {
	tm, err := Parse("resources[0].manifest", `{{ range 100000000 }}0123456789{{ end }}`)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	out, err := tm.Execute(map[string]any{}, time.Time{})
	if err == nil || out != "" {
		t.Fatalf("Execute = %d bytes, %v; want an error", len(out), err)
	}
	want := fmt.Sprintf("template: resources[0].manifest: output exceeds the template output limit of %d bytes", MaxOutputBytes)
	if err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("took %v", took)
	}
	// Exactly the limit is fine.
	tm, _ = Parse("p", fmt.Sprintf(`{{ range %d }}0123456789{{ end }}`, MaxOutputBytes/10))
	if out, err := tm.Execute(map[string]any{}, time.Time{}); err != nil || len(out) != MaxOutputBytes/10*10 {
		t.Errorf("at the limit: %d bytes, %v", len(out), err)
	}
}
