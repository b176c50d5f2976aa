package config

import (
	"errors"
	"github.com/bundle-adapter/bundle-adapter/internal/configfile"
	"os"
	"path/filepath"
	"testing"
)

// fuzzSeeds adds every file matching the patterns as a seed.
func fuzzSeeds(f *testing.F, patterns ...string) {
	f.Helper()
	for _, pattern := range patterns {
		files, err := filepath.Glob(pattern)
		if err != nil || len(files) == 0 {
			f.Fatalf("no seed files match %s (%v)", pattern, err)
		}
		for _, file := range files {
			b, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
}

// fuzzBundleDir is a folder holding the manifest files the seed task
// configs refer to (bundles/*.yaml), so fuzzed configs get past the refs
// and into compilation.
func fuzzBundleDir(f *testing.F) string {
	f.Helper()
	dir := f.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "bundles"), 0o755); err != nil {
		f.Fatal(err)
	}
	for _, src := range []string{"examples/onprem/bundles", "examples/gcp/bundles", "testdata/broken/bundles", "../adapter/testdata/bundles"} {
		files, _ := filepath.Glob(filepath.Join(src, "*.yaml"))
		for _, file := range files {
			dst := filepath.Join(dir, "bundles", filepath.Base(file))
			if _, err := os.Stat(dst); err == nil {
				continue
			}
			b, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			if err := os.WriteFile(dst, b, 0o644); err != nil {
				f.Fatal(err)
			}
		}
	}
	return dir
}

// checkLoadError: a load either succeeds or fails with Errors, every entry
// naming the file it was about.
func checkLoadError(t *testing.T, path string, err error) {
	t.Helper()
	if err == nil {
		return
	}
	var es configfile.Errors
	if !errors.As(err, &es) {
		t.Fatalf("error %v is a %T, want config.Errors", err, err)
	}
	if len(es) == 0 {
		t.Fatal("load failed with an empty Errors")
	}
	for _, e := range es {
		if e.File != path {
			t.Fatalf("error %q names file %q, want %q", e.Error(), e.File, path)
		}
		if e.Msg == "" {
			t.Fatalf("error without a message: %#v", e)
		}
	}
}

// FuzzLoadTaskConfig: whatever the bytes of a task config, LoadTaskConfig
// never panics; it succeeds with a config or fails with config.Errors whose
// every entry names the file.
//
// Seeds: testdata/fuzz/FuzzLoadTaskConfig (regressions included; YAML
// anchors, aliases and merge keys among them), the examples, the broken
// and hostile fixtures and the adapter tests' task configs.
func FuzzLoadTaskConfig(f *testing.F) {
	fuzzSeeds(f, "examples/*/task-config.yaml", "testdata/broken/*.yaml", "testdata/hostile/*.yaml", "../adapter/testdata/*.yaml")
	dir := fuzzBundleDir(f)
	path := filepath.Join(dir, "task-config.yaml")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		cfg, err := LoadTaskConfig(path)
		checkLoadError(t, path, err)
		if err == nil && cfg == nil {
			t.Fatal("LoadTaskConfig returned neither a config nor an error")
		}
	})
}

// FuzzLoadAdapterConfig: the same for the adapter config.
func FuzzLoadAdapterConfig(f *testing.F) {
	fuzzSeeds(f, "examples/*/adapter-config.yaml", "testdata/adapter/*.yaml", "testdata/hostile/*.yaml")
	path := filepath.Join(f.TempDir(), "adapter-config.yaml")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		cfg, err := LoadAdapterConfig(path, nil)
		checkLoadError(t, path, err)
		if err == nil && cfg == nil {
			t.Fatal("LoadAdapterConfig returned neither a config nor an error")
		}
	})
}

// FuzzParseYAML: whatever the bytes, parseYAML never panics or hangs, and a
// document it accepts decodes (as the config decoders would, expanding
// every alias and merge key) into at most MaxYAMLNodes values nested at
// most MaxYAMLDepth deep.
//
// Seeds: testdata/fuzz/FuzzParseYAML and the hostile fixtures.
func FuzzParseYAML(f *testing.F) {
	fuzzSeeds(f, "testdata/hostile/*.yaml", "testdata/hostile/bundles/*.yaml", "examples/*/*.yaml")
	f.Fuzz(func(t *testing.T, data []byte) {
		root, err := configfile.ParseYAML(data)
		if err != nil || root == nil {
			return
		}
		var v any
		if err := root.Decode(&v); err != nil {
			return
		}
		if n, depth := countValues(v, 0); n > configfile.MaxYAMLNodes || depth > configfile.MaxYAMLDepth+1 {
			t.Fatalf("accepted a document that decodes to %d values nested %d deep", n, depth)
		}
	})
}

// countValues counts the values of a decoded document and its depth.
func countValues(v any, depth int) (n, maxDepth int) {
	n, maxDepth = 1, depth
	visit := func(c any) {
		cn, cd := countValues(c, depth+1)
		n += cn
		maxDepth = max(maxDepth, cd)
	}
	switch x := v.(type) {
	case map[string]any:
		for _, c := range x {
			visit(c)
		}
	case map[any]any:
		for _, c := range x {
			visit(c)
		}
	case []any:
		for _, c := range x {
			visit(c)
		}
	}
	return n, maxDepth
}
