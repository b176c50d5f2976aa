//go:build unix

package config

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Hostile or careless config files: each must fail fast, with a clear error
// naming the file, and never crash, hang or exhaust memory. A load that
// would crash (stack overflow, out of memory) or hang takes the test binary
// with it, so every row that did so before the bounds existed loads in a
// child process of this test binary, bounded by a stack limit, a heap
// watchdog and a deadline; the others load in this process.
func TestHostileConfigFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	refDir := copyHostileRefFixture(t)
	big := filepath.Join(dir, "big.yaml")
	writeFile(t, big, "# "+strings.Repeat("x", 1<<20)+"\n")
	hostile := func(name string) string { return filepath.Join("testdata", "hostile", name) }
	tests := []struct {
		name, loader, file string
		want               []string
	}{
		// item 5: an anchor whose merge key refers to itself.
		{"merge key into itself", "broker", hostile("broker-merge-self.yaml"),
			[]string{"broker-merge-self.yaml:2: invalid YAML: alias *a refers to a node that contains it (anchor &a, line 1)"}},
		// item 6: expansion bombs.
		{"nested merge keys", "task", hostile("merge-bomb.yaml"),
			[]string{"merge-bomb.yaml:", "invalid YAML: aliases and merge keys expand to more than 100000 YAML nodes (config.MaxYAMLNodes)"}},
		{"450 aliases of a 450-element list", "task", hostile("list-aliases.yaml"),
			[]string{"list-aliases.yaml:", "expand to more than 100000 YAML nodes"}},
		{"aliases nested 120 deep", "task", hostile("deep-aliases.yaml"),
			[]string{"deep-aliases.yaml:", "nested deeper than 100 levels once aliases are expanded (config.MaxYAMLDepth)"}},
		{"alias bomb in a manifest ref", "task", hostile("ref-bomb.yaml"),
			[]string{"ref-bomb.yaml:5: resources[0].manifest: ", "list-aliases.yaml", "expand to more than 100000 YAML nodes"}},
		{"alias bomb in a build ref", "task", hostile("build-ref-bomb.yaml"),
			[]string{"build-ref-bomb.yaml:4: post.payloads[0].build_ref: ", "expand to more than 100000 YAML nodes"}},
		// item 9: files that are not regular or too big.
		{"task config /dev/zero", "task", "/dev/zero", []string{"/dev/zero: cannot read: not a regular file (a device)"}},
		{"adapter config FIFO", "adapter", fifo, []string{"fifo.yaml: cannot read: not a regular file (a named pipe)"}},
		{"broker config directory", "broker", dir, []string{": cannot read: not a regular file (a directory)"}},
		{"task config over 1 MiB", "task", big, []string{"big.yaml: cannot read: file of 1048579 bytes is larger than the limit of 1048576 bytes (config.MaxFileBytes)"}},
		{"manifest ref to a FIFO", "task", filepath.Join(refDir, "ref-fifo.yaml"),
			[]string{"ref-fifo.yaml:5: resources[0].manifest.ref: cannot read bundles/fifo.yaml: not a regular file (a named pipe)"}},
		// item 10: a second document, or a document with nothing in it.
		{"second document", "task", hostile("two-documents.yaml"),
			[]string{"two-documents.yaml:3: invalid YAML: a second YAML document (after ---): exactly one YAML document is allowed"}},
		{"second document in a broker config", "broker", hostile("broker-two-documents.yaml"),
			[]string{"broker-two-documents.yaml:2: invalid YAML: a second YAML document"}},
		{"only ---", "task", hostile("only-separator.yaml"), []string{"only-separator.yaml: file is empty (no YAML document, or a null one)"}},
		{"null", "task", hostile("null.yaml"), []string{"null.yaml: file is empty"}},
		{"null adapter config", "adapter", hostile("null.yaml"), []string{"null.yaml: file is empty"}},
		{"empty mapping", "task", hostile("empty-mapping.yaml"),
			[]string{"empty-mapping.yaml:1: has no params, resources or post: a task config must do something"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out string
			if crashOrHang[tt.name] {
				out = loadInChild(t, tt.loader, tt.file)
			} else {
				out = loadHere(tt.loader, tt.file)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("want %q in the load's outcome:\n%s", w, out)
				}
			}
		})
	}
}

// crashOrHang names the rows of TestHostileConfigFiles that crashed, hung
// or exhausted memory before the bounds existed.
var crashOrHang = map[string]bool{
	"merge key into itself": true, "nested merge keys": true, "450 aliases of a 450-element list": true,
	"alias bomb in a manifest ref": true, "alias bomb in a build ref": true,
	"task config /dev/zero": true, "adapter config FIFO": true, "manifest ref to a FIFO": true,
}

// loadHere loads file with the named loader and returns its error text, or
// "loaded".
func loadHere(loader, file string) string {
	var err error
	switch loader {
	case "task":
		_, err = LoadTaskConfig(file)
	case "adapter":
		_, err = LoadAdapterConfig(file, nil)
	case "broker":
		_, err = LoadBrokerConfig(file)
	default:
		err = fmt.Errorf("unknown loader %q", loader)
	}
	if err == nil {
		return "loaded"
	}
	return err.Error()
}

// copyHostileRefFixture makes a folder holding ref-fifo.yaml and, beside
// it, bundles/fifo.yaml as a FIFO nobody writes to.
func copyHostileRefFixture(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	b, err := os.ReadFile(filepath.Join("testdata", "hostile", "ref-fifo.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "ref-fifo.yaml"), string(b))
	if err := os.Mkdir(filepath.Join(dir, "bundles"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "bundles", "fifo.yaml"), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// Child-process bounds: a load that needs more than these has lost.
const (
	childDeadline = 15 * time.Second
	childMaxHeap  = 512 << 20
	childMaxStack = 64 << 20
)

// loadInChild runs one load in a child process (TestLoadChild) and returns
// what it printed: the load's error, or "loaded". A crash, a hang past
// childDeadline or a heap past childMaxHeap fails the test.
func loadInChild(t *testing.T, loader, file string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), childDeadline+10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestLoadChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), "CONFIG_LOAD_CHILD="+loader, "CONFIG_LOAD_CHILD_FILE="+file)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	text := string(out)
	if len(text) > 2000 {
		text = text[:2000] + "..."
	}
	if err != nil {
		t.Fatalf("load in child process failed after %s (%v):\n%s", time.Since(start).Round(time.Millisecond), err, text)
	}
	return text
}

// TestLoadChild is the child side of loadInChild; without its environment
// it does nothing.
func TestLoadChild(t *testing.T) {
	loader, file := os.Getenv("CONFIG_LOAD_CHILD"), os.Getenv("CONFIG_LOAD_CHILD_FILE")
	if loader == "" {
		t.Skip("only run by loadInChild")
	}
	debug.SetMaxStack(childMaxStack)
	go childWatchdog()
	fmt.Println(loadHere(loader, file))
}

// childWatchdog ends the child process once it ran past childDeadline or
// its heap grew past childMaxHeap.
func childWatchdog() {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	deadline := time.Now().Add(childDeadline)
	for range time.Tick(20 * time.Millisecond) {
		metrics.Read(sample)
		if heap := sample[0].Value.Uint64(); heap > childMaxHeap {
			fmt.Printf("heap of %d MiB past the bound of %d MiB\n", heap>>20, childMaxHeap>>20)
			os.Exit(3)
		}
		if time.Now().After(deadline) {
			fmt.Printf("still loading after %s\n", childDeadline)
			os.Exit(4)
		}
	}
}
