package logfmt

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A duration is written as text by both handlers, at the top level, in a
// group, and through slog.Any.
func TestDurationsAsText(t *testing.T) {
	cases := []struct {
		name string
		log  func(*slog.Logger)
		key  []string
		want string
	}{
		{"attr", func(l *slog.Logger) { l.Info("m", "retry_in", 8*time.Second) }, []string{"retry_in"}, "8s"},
		{"slog.Duration", func(l *slog.Logger) { l.Info("m", slog.Duration("took", 1500*time.Millisecond)) }, []string{"took"}, "1.5s"},
		{"any", func(l *slog.Logger) { l.Info("m", slog.Any("delay", 200*time.Millisecond)) }, []string{"delay"}, "200ms"},
		{"group", func(l *slog.Logger) { l.Info("m", slog.Group("g", "d", time.Minute)) }, []string{"g", "d"}, "1m0s"},
		{"with", func(l *slog.Logger) { l.With("timeout", 30*time.Second).Info("m") }, []string{"timeout"}, "30s"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			c.log(slog.New(slog.NewJSONHandler(&buf, Options(slog.LevelInfo))))
			var rec map[string]any
			if err := json.Unmarshal(buf.Bytes(), &rec); err != nil {
				t.Fatal(err)
			}
			var v any = rec
			for _, k := range c.key {
				v = v.(map[string]any)[k]
			}
			if v != c.want {
				t.Errorf("JSON %s = %#v, want %q (%s)", strings.Join(c.key, "."), v, c.want, buf.String())
			}
			buf.Reset()
			c.log(slog.New(slog.NewTextHandler(&buf, Options(slog.LevelInfo))))
			if !strings.Contains(buf.String(), "="+c.want) {
				t.Errorf("text: %q lacks =%s", buf.String(), c.want)
			}
		})
	}
}

// Every slog handler the repository builds (slog.NewJSONHandler,
// slog.NewTextHandler in any non-test Go file) takes Options (or writes to
// io.Discard), so no log line anywhere has a duration in nanoseconds. A new
// handler built without it fails here, naming its file and line.
func TestEveryHandlerUsesOptions(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	found := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || (sel.Sel.Name != "NewJSONHandler" && sel.Sel.Name != "NewTextHandler") {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); !ok || x.Name != "slog" {
				return true
			}
			found++
			if len(call.Args) == 2 && (isSel(call.Args[0], "io", "Discard") || isCall(call.Args[1], "logfmt", "Options")) {
				return true
			}
			t.Errorf("%s: slog.%s without logfmt.Options: its durations would be logged as nanoseconds", fset.Position(call.Pos()), sel.Sel.Name)
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found == 0 {
		t.Fatal("no slog handler found in the repository: this test no longer finds them")
	}
}

func isSel(e ast.Expr, pkg, name string) bool {
	sel, ok := e.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	x, ok := sel.X.(*ast.Ident)
	return ok && x.Name == pkg && sel.Sel.Name == name
}

func isCall(e ast.Expr, pkg, name string) bool {
	call, ok := e.(*ast.CallExpr)
	return ok && isSel(call.Fun, pkg, name)
}
