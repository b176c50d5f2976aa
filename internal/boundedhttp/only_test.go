package boundedhttp

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// serverAPIs are the names that open a listener or build a server, by
// import path. Outside this package, the packages cmd/ links use none.
var serverAPIs = map[string][]string{
	"net/http":                   {"Server", "ListenAndServe", "ListenAndServeTLS", "Serve", "ServeTLS"},
	"net/http/httptest":          {"Server", "NewServer", "NewTLSServer", "NewUnstartedServer"},
	"net":                        {"Listen", "ListenTCP", "ListenUnix", "ListenUnixgram", "ListenPacket", "ListenUDP", "ListenIP", "ListenMulticastUDP", "ListenConfig", "FileListener"},
	"crypto/tls":                 {"Listen", "NewListener"},
	"google.golang.org/grpc":     {"NewServer"},
	"golang.org/x/net/http2":     {"Server", "ConfigureServer"},
	"golang.org/x/net/http2/h2c": {"NewHandler"},
	"golang.org/x/net/netutil":   {"LimitListener"},
	"golang.org/x/net/websocket": {"Server"},
}

// TestOnlyBoundedServers: no package that a binary under cmd/ links, this
// one aside, builds a server or opens a listener itself; they all go
// through Listen or Serve, so none can miss a timeout or the cap.
func TestOnlyBoundedServers(t *testing.T) {
	root, module := moduleRoot(t)
	visited := map[string]bool{}
	var queue []string
	cmds, _ := filepath.Glob(filepath.Join(root, "cmd", "*"))
	for _, dir := range cmds {
		queue = append(queue, module+"/"+filepath.ToSlash(must(filepath.Rel(root, dir))))
	}
	self := module + "/internal/boundedhttp"
	for len(queue) > 0 {
		pkg := queue[0]
		queue = queue[1:]
		if visited[pkg] {
			continue
		}
		visited[pkg] = true
		dir := filepath.Join(root, filepath.FromSlash(strings.TrimPrefix(pkg, module)))
		files, imports := parseDir(t, dir)
		for _, imp := range imports {
			if imp == module || strings.HasPrefix(imp, module+"/") {
				queue = append(queue, imp)
			}
		}
		if pkg == self {
			continue
		}
		for name, f := range files {
			for _, v := range bareServers(f.fset, f.file) {
				t.Errorf("%s: %s: serve through internal/boundedhttp (Listen, Serve), which bounds every server", must(filepath.Rel(root, name)), v)
			}
		}
	}
	for _, want := range []string{module + "/cmd/bundle-adapter", module + "/health", self} {
		if !visited[want] {
			t.Errorf("the walk from cmd/ never reached %s: it checks less than it claims", want)
		}
	}
}

// TestBareServersFlagged: the check finds each way of opening a listener
// in testdata/bare, renamed and dot imports included, and nothing else.
func TestBareServersFlagged(t *testing.T) {
	want := regexp.MustCompile(`// want (.*)$`)
	files, _ := filepath.Glob("testdata/bare/*.go.txt")
	for _, name := range files {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		var expected []string
		src := string(must(os.ReadFile(name)))
		for i, line := range strings.Split(src, "\n") {
			if m := want.FindStringSubmatch(line); m != nil {
				expected = append(expected, fmt.Sprintf("line %d: %s", i+1, m[1]))
			}
		}
		got := bareServers(fset, f)
		if !slices.Equal(got, expected) {
			t.Errorf("%s:\n got  %q\n want %q", name, got, expected)
		}
	}
	if len(files) == 0 {
		t.Fatal("no fixtures")
	}
}

type parsedFile struct {
	fset *token.FileSet
	file *ast.File
}

// parseDir parses the non-test Go files of dir: the files, and the import
// paths of all of them.
func parseDir(t *testing.T, dir string) (map[string]parsedFile, []string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]parsedFile{}
	var imports []string
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		fset := token.NewFileSet()
		p := filepath.Join(dir, name)
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files[p] = parsedFile{fset, f}
		for _, imp := range f.Imports {
			imports = append(imports, must(strconv.Unquote(imp.Path.Value)))
		}
	}
	return files, imports
}

// bareServers lists, as "line N: path.Name", the uses in f of the names
// in serverAPIs, and dot imports of their packages.
func bareServers(fset *token.FileSet, f *ast.File) []string {
	names := map[string]string{} // local package name -> import path
	var found []string
	for _, imp := range f.Imports {
		p := must(strconv.Unquote(imp.Path.Value))
		if _, watched := serverAPIs[p]; !watched {
			continue
		}
		local := path.Base(p)
		if imp.Name != nil {
			local = imp.Name.Name
		}
		if local == "." {
			found = append(found, fmt.Sprintf("line %d: dot import of %s", fset.Position(imp.Pos()).Line, p))
			continue
		}
		names[local] = p
	}
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		x, ok := sel.X.(*ast.Ident)
		if !ok || x.Obj != nil { // x.Obj set: a local, not a package
			return true
		}
		if p, ok := names[x.Name]; ok && slices.Contains(serverAPIs[p], sel.Sel.Name) {
			found = append(found, fmt.Sprintf("line %d: %s.%s", fset.Position(sel.Pos()).Line, p, sel.Sel.Name))
		}
		return true
	})
	return found
}

// moduleRoot is the directory holding go.mod above this package, and the
// module path it declares.
func moduleRoot(t *testing.T) (string, string) {
	t.Helper()
	dir := must(filepath.Abs("."))
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil {
			m := regexp.MustCompile(`(?m)^module\s+(\S+)`).FindSubmatch(b)
			if m == nil {
				t.Fatal("go.mod names no module")
			}
			return dir, string(m[1])
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the package")
		}
		dir = parent
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
