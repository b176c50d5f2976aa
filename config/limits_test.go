package config_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestNamedBoundsExist: every config.Max<Name> or config.Min<Name> that an
// error text, a comment or a doc names is an exported constant of package
// config, so that a user reading "must be at most 10m (config.MaxBackoff)"
// finds it.
func TestNamedBoundsExist(t *testing.T) {
	declared := configConsts(t)
	// Other projects' config packages, quoted in docs.
	declared["MaxOpenConnections"] = true // Maestro's pkg/db, bench/README.md
	named := regexp.MustCompile(`\bconfig\.((?:Max|Min)[A-Za-z]+)`)
	root := filepath.Join("..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, ".md") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range named.FindAllStringSubmatch(string(b), -1) {
			if !declared[m[1]] {
				t.Errorf("%s names config.%s, which package config does not declare", path, m[1])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// configConsts returns the exported constants declared in package config
// (its non-test files).
func configConsts(t *testing.T) map[string]bool {
	t.Helper()
	pkgs, err := parser.ParseDir(token.NewFileSet(), ".", func(fi fs.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, f := range pkgs["config"].Files {
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, s := range g.Specs {
				for _, n := range s.(*ast.ValueSpec).Names {
					if n.IsExported() {
						out[n.Name] = true
					}
				}
			}
		}
	}
	if len(out) == 0 {
		t.Fatal("no exported constants found in package config")
	}
	return out
}
