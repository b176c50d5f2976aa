package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/bundle-adapter/bundle-adapter/broker/pubsub"
	"github.com/bundle-adapter/bundle-adapter/tracing"
)

// libraryRoots are the linked libraries that read environment variables
// on their own: Google auth and transport (Pub/Sub), the OTLP exporters,
// client-go.
var libraryRoots = []string{
	"cloud.google.com/go/auth", "cloud.google.com/go/pubsub", "google.golang.org/api",
	"golang.org/x/oauth2", "github.com/googleapis/enterprise-certificate-proxy", "github.com/google/s2a-go",
	"go.opentelemetry.io/otel/exporters/otlp", "k8s.io/client-go",
}

// notFileEnv are the variables those libraries read whose value is not a
// path and makes them read no file; each was reviewed in their source.
var notFileEnv = map[string]string{
	"GOOGLE_CLOUD_PROJECT": "project id", "GOOGLE_CLOUD_QUOTA_PROJECT": "project id",
	"GOOGLE_CLOUD_UNIVERSE_DOMAIN": "domain name", "PUBSUB_EMULATOR_HOST": "host:port",
	"GOOGLE_API_USE_MTLS_ENDPOINT": "endpoint choice", "GOOGLE_API_USE_MTLS": "endpoint choice",
	"GOOGLE_CLOUD_DISABLE_DIRECT_PATH": "bool", "GOOGLE_CLOUD_ENABLE_DIRECT_PATH_XDS": "bool",
	"GOOGLE_CLOUD_ENABLE_DIRECT_PATH_XDS_OVER_INTERCONNECT": "bool",
	"GOOGLE_AUTH_TRUST_BOUNDARY_ENABLED":                    "bool",
	"GOOGLE_API_GO_EXPERIMENTAL_DISABLE_NEW_AUTH_LIB":       "bool",
	"GOOGLE_API_GO_EXPERIMENTAL_ENABLE_NEW_AUTH_LIB":        "bool",
	"GOOGLE_EXTERNAL_ACCOUNT_ALLOW_EXECUTABLES":             "bool; credentials naming an executable are refused (pubsub.ReadFiles)",
	"AWS_ACCESS_KEY_ID":                                     "secret value (AWS external account)", "AWS_SECRET_ACCESS_KEY": "secret value",
	"AWS_SESSION_TOKEN": "secret value", "AWS_REGION": "region", "AWS_DEFAULT_REGION": "region",
	"GCE_METADATA_HOST": "host", "GCE_METADATA_IP": "host",
	"OTEL_EXPORTER_OTLP_ENDPOINT": "URL", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "URL",
	"OTEL_EXPORTER_OTLP_INSECURE": "bool", "OTEL_EXPORTER_OTLP_TRACES_INSECURE": "bool",
	"OTEL_EXPORTER_OTLP_HEADERS": "headers", "OTEL_EXPORTER_OTLP_TRACES_HEADERS": "headers",
	"OTEL_EXPORTER_OTLP_COMPRESSION": "name", "OTEL_EXPORTER_OTLP_TRACES_COMPRESSION": "name",
	"OTEL_EXPORTER_OTLP_PROTOCOL": "name", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "name",
	"OTEL_EXPORTER_OTLP_TIMEOUT": "duration", "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT": "duration",
	"OTEL_GO_X_OBSERVABILITY": "bool", "OTEL_GO_X_SELF_OBSERVABILITY": "bool",
	"KUBERNETES_SERVICE_HOST": "host", "KUBERNETES_SERVICE_PORT": "port",
	"S2A_ACCESS_TOKEN": "secret value", "S2A_TIMEOUT": "duration",
	"KUBE_CLIENT_BACKOFF_BASE": "duration", "KUBE_CLIENT_BACKOFF_DURATION": "duration",
	"KUBERNETES_MASTER": "URL", "POD_NAMESPACE": "name",
	"KUBE_WATCHLIST_INCONSISTENCY_DETECTOR": "bool", "KUBE_CACHE_MUTATION_DETECTOR": "bool",
	// Read only by clientcmd's loading rules and homedir, which nothing
	// here calls (TestNoLibraryLoadingRules): kubeclient reads the
	// kubeconfig of clients.kubernetes.kube_config_path, and what it
	// names, through boundedfile.
	"KUBECONFIG": "not reached (clientcmd loading rules)", "HOMEDRIVE": "not reached (homedir)",
	"HOMEPATH": "not reached (homedir)", "USERPROFILE": "not reached (homedir)",
}

// acknowledgedDynamic are library functions that read a variable whose
// name is not a constant in their source, reviewed one by one.
var acknowledgedDynamic = map[string]string{
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc/internal/x.Lookup": "OTEL_GO_X_ feature flags (bool)",
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp/internal/x.Lookup": "OTEL_GO_X_ feature flags (bool)",
	"golang.org/x/oauth2/google/externalaccount.getenv":                                 "environment of an executable credential source; refused by pubsub.ReadFiles",
	"k8s.io/client-go/features.getEnabledMapFromEnvVar":                                 "KUBE_FEATURE_ gates (bool)",
	"k8s.io/client-go/tools/clientcmd.GetEnvVarFiles":                                   "KUBECONFIG for the loading rules; not reached (TestNoLibraryLoadingRules)",
	"cloud.google.com/go/auth/credentials/internal/externalaccount.getenv":              "environment of an executable credential source; refused by pubsub.ReadFiles",
}

// TestLibraryFileEnvCovered is the class test of "files libraries read on
// their own": it reads, in the module cache, the source of every linked
// package of those libraries, collects each variable they read
// (os.Getenv and os.LookupEnv with a constant name, and the OTLP
// exporters' OTEL_EXPORTER_OTLP_ keys), and fails for one that is neither
// read here (tracing.FileEnv, pubsub.FileEnv) nor reviewed as not naming a
// file (notFileEnv). A new library version that reads a new variable fails
// it until the variable is classified.
func TestLibraryFileEnvCovered(t *testing.T) {
	found, dynamic := libraryEnv(t)
	covered := map[string]bool{}
	for _, n := range slices.Concat(tracing.FileEnv, pubsub.FileEnv) {
		covered[n] = true
	}
	for name, where := range found {
		if !covered[name] && notFileEnv[name] == "" {
			t.Errorf("%s (read by %s) is neither read through boundedfile (tracing.FileEnv, pubsub.FileEnv) nor reviewed as not a file (notFileEnv)", name, strings.Join(where, ", "))
		}
	}
	for name := range covered {
		if _, ok := found[name]; !ok {
			t.Errorf("%s is in a FileEnv list but no linked library reads it: the scan missed it or the list is stale", name)
		}
	}
	for _, fn := range dynamic {
		if acknowledgedDynamic[fn] == "" {
			t.Errorf("%s reads a variable whose name is not a constant: review it and add it to acknowledgedDynamic", fn)
		}
	}
	if len(found) < 20 {
		t.Fatalf("only %d variables found: the scan is broken", len(found))
	}
}

// libraryEnv scans the linked packages under libraryRoots.
func libraryEnv(t *testing.T) (map[string][]string, []string) {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}\t{{.Dir}}\t{{join .GoFiles \",\"}}", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	pkgs := map[string]*ast.Package{}
	var order []string
	fset := token.NewFileSet()
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 3 || !underRoots(f[0]) || f[2] == "" {
			continue
		}
		p := &ast.Package{Name: f[0], Files: map[string]*ast.File{}}
		for _, name := range strings.Split(f[2], ",") {
			file, err := parser.ParseFile(fset, filepath.Join(f[1], name), nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			p.Files[name] = file
		}
		pkgs[f[0]] = p
		order = append(order, f[0])
	}
	consts := map[string]map[string]string{}
	for path, p := range pkgs {
		consts[path] = packageConsts(p)
	}
	found := map[string][]string{}
	var dynamic []string
	for _, path := range order {
		for _, file := range pkgs[path].Files {
			scanFile(path, file, consts, found, &dynamic)
		}
	}
	sort.Strings(dynamic)
	return found, slices.Compact(dynamic)
}

func underRoots(path string) bool {
	for _, r := range libraryRoots {
		if path == r || strings.HasPrefix(path, r+"/") {
			return true
		}
	}
	return false
}

func packageConsts(p *ast.Package) map[string]string {
	m := map[string]string{}
	for _, f := range p.Files {
		ast.Inspect(f, func(n ast.Node) bool { // package and function constants
			g, ok := n.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				return true
			}
			for _, s := range g.Specs {
				vs := s.(*ast.ValueSpec)
				for i, n := range vs.Names {
					if i < len(vs.Values) {
						if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
							m[n.Name], _ = strconv.Unquote(lit.Value)
						}
					}
				}
			}
			return true
		})
	}
	return m
}

var otlpKey = regexp.MustCompile(`^[A-Z][A-Z_]+$`)

// scanFile records the variables file reads: os.Getenv/os.LookupEnv
// arguments resolved to constants (dynamic ones by function), and in the
// OTLP exporters' otlpconfig the keys of their envconfig readers.
func scanFile(path string, file *ast.File, consts map[string]map[string]string, found map[string][]string, dynamic *[]string) {
	imports := map[string]string{}
	for _, im := range file.Imports {
		ip, _ := strconv.Unquote(im.Path.Value)
		name := filepath.Base(ip)
		if im.Name != nil {
			name = im.Name.Name
		}
		imports[name] = ip
	}
	otlp := strings.HasSuffix(path, "/internal/otlpconfig") && strings.Contains(path, "otlptrace")
	for _, d := range file.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok {
			continue
		}
		ast.Inspect(fn, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if isEnvCall(call, imports) && len(call.Args) == 1 {
				if name, ok := resolve(call.Args[0], path, imports, consts); ok {
					found[name] = append(found[name], path)
				} else {
					*dynamic = append(*dynamic, path+"."+fn.Name.Name)
				}
			}
			if otlp && calleeName(call) != "" && strings.HasPrefix(calleeName(call), "With") {
				for _, a := range call.Args {
					if lit, ok := a.(*ast.BasicLit); ok && lit.Kind == token.STRING {
						if v, _ := strconv.Unquote(lit.Value); otlpKey.MatchString(v) {
							found["OTEL_EXPORTER_OTLP_"+v] = append(found["OTEL_EXPORTER_OTLP_"+v], path)
						}
					}
				}
			}
			return true
		})
	}
}

func isEnvCall(call *ast.CallExpr, imports map[string]string) bool {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	x, ok := sel.X.(*ast.Ident)
	return ok && (imports[x.Name] == "os" || imports[x.Name] == "syscall") &&
		(sel.Sel.Name == "Getenv" || sel.Sel.Name == "LookupEnv")
}

func calleeName(call *ast.CallExpr) string {
	switch f := call.Fun.(type) {
	case *ast.Ident:
		return f.Name
	case *ast.SelectorExpr:
		return f.Sel.Name
	}
	return ""
}

func resolve(e ast.Expr, path string, imports map[string]string, consts map[string]map[string]string) (string, bool) {
	switch x := e.(type) {
	case *ast.BasicLit:
		v, err := strconv.Unquote(x.Value)
		return v, err == nil
	case *ast.Ident:
		v, ok := consts[path][x.Name]
		return v, ok
	case *ast.SelectorExpr:
		if id, ok := x.X.(*ast.Ident); ok {
			v, ok := consts[imports[id.Name]][x.Sel.Name]
			return v, ok
		}
	}
	return "", false
}

// loadingRules are library entry points that read files of their own
// choosing (KUBECONFIG, ~/.kube/config, the in-cluster token and CA, a
// credentials file): nothing in the product calls them, so the variables
// they read (notFileEnv's "not reached") are never read.
var loadingRules = []string{
	"NewDefaultClientConfigLoadingRules", "BuildConfigFromFlags", "InClusterConfig", "RecommendedHomeFile",
	"homedir.HomeDir", "clientcmd.LoadFromFile", "WithCredentialsFile", "WithAuthCredentialsFile",
	"FindDefaultCredentials", "credentials.DetectDefault",
}

func TestNoLibraryLoadingRules(t *testing.T) {
	var files []string
	for _, glob := range []string{"../../*/*.go", "../../*/*/*.go", "../../*/*/*/*.go"} {
		m, _ := filepath.Glob(glob)
		files = append(files, m...)
	}
	if len(files) < 100 {
		t.Fatalf("found %d files: the globs are wrong", len(files))
	}
	for _, f := range files {
		top := strings.Split(strings.TrimPrefix(f, "../../"), "/")[0]
		if strings.HasSuffix(f, "_test.go") || slices.Contains([]string{"e2e", "bench", "hack"}, top) {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range loadingRules {
			if strings.Contains(string(data), r+"(") {
				t.Errorf("%s calls %s, which reads files on its own", f, r)
			}
		}
	}
}
