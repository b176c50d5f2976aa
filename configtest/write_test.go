package configtest

import (
	"bytes"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fsizeEnv makes the test binary run Run with --update under a file size
// limit (TestMain): a write that fails half way, as on a full disk.
const fsizeEnv = "CONFIGTEST_UPDATE_UNDER_FSIZE"

func TestMain(m *testing.M) {
	if path := os.Getenv(fsizeEnv); path != "" {
		signal.Ignore(syscall.SIGXFSZ) // the write fails with EFBIG instead
		lim := &syscall.Rlimit{Cur: 200, Max: 200}
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, lim); err != nil {
			os.Exit(99)
		}
		os.Exit(Run([]string{path}, Options{Update: true, Out: os.Stdout, Err: os.Stderr}))
	}
	os.Exit(m.Run())
}

// --update whose write fails (here a 200-byte file size limit) leaves the
// test file whole, and leaves no temporary file behind (finding 4 of
// issue 43: it was left cut mid-line). A successful --update replaces the
// file (a new inode: written beside it and renamed).
func TestUpdateWriteFailsLeavesFileWhole(t *testing.T) {
	path := writeTest(t, "broken_test.yaml", fixture(t, "broken_test.yaml"))
	before, _ := os.ReadFile(path)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), fsizeEnv+"="+path)
	out, _ := cmd.CombinedOutput()
	if cmd.ProcessState.ExitCode() != ExitInvalid {
		t.Errorf("update under a size limit: exit %d, want %d\n%s", cmd.ProcessState.ExitCode(), ExitInvalid, out)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Fatalf("the failed update changed the file:\n%s", after)
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
	var st0 syscall.Stat_t
	_ = syscall.Stat(path, &st0)
	if code, out, _ := runTests(t, Options{Update: true}, path); code != ExitPass {
		t.Fatalf("update: exit %d\n%s", code, out)
	}
	var st1 syscall.Stat_t
	_ = syscall.Stat(path, &st1)
	if st0.Ino == st1.Ino {
		t.Errorf("--update wrote the file in place (same inode), not through a rename")
	}
}

// anchorTest has an expectation anchored in one case and aliased by
// another, both wrong, and (so that --update must encode the document
// again) one expectation that does not fit on a line.
const anchorTest = `adapter_config: ONPREM/adapter-config.yaml
task_config: ONPREM/task-config.yaml
defaults:
  event: ONPREM/dryrun/event.json
  api_responses: ONPREM/dryrun/api-responses.json
cases:
  - name: one
    expect:
      resources:
        clusterSetup: {operation: &op update}
      objects:
        clusterSetup:
          spec.workload.manifests[1].data: cluster-info
  - name: two
    expect:
      resources:
        clusterSetup: {operation: *op}
`

// --update never drops an anchor another case aliases, nor rewrites an
// aliased value for every case at once: it refuses, naming the anchor,
// and leaves the file as it was (finding 5: the rewritten file no longer
// parsed, "unknown anchor").
func TestUpdateRefusesAnchoredEdits(t *testing.T) {
	path := writeTest(t, "anchor_test.yaml", anchorTest)
	before, _ := os.ReadFile(path)
	code, out, errOut := runTests(t, Options{Update: true}, path)
	if code != ExitInvalid || !strings.Contains(errOut, "anchor &op") {
		t.Errorf("exit %d, want %d naming the anchor\n%s%s", code, ExitInvalid, out, errOut)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Errorf("the file changed:\n%s", after)
	}
}

// What --junit and --update write: never one of the run's inputs, never a
// non-regular file (a FIFO does not hang), never through a link that
// leaves the folder (findings 6 and 7). Each case says what the run must
// leave untouched.
func TestWritesRefused(t *testing.T) {
	type setup struct {
		test   string // the test file run
		junit  string // --junit, "" for --update
		intact string // a file that must be left as it was
		want   string // in stderr
	}
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string) setup
	}{
		{"junit over the test file", func(t *testing.T, dir string) setup {
			p := writeTest(t, "a_test.yaml", fixture(t, "broken_test.yaml"))
			return setup{test: p, junit: p, intact: p, want: "an input of this run"}
		}},
		{"junit over the adapter config it uses", func(t *testing.T, dir string) setup {
			cfg := copyFile(t, filepath.Join(onprem(t), "adapter-config.yaml"), filepath.Join(dir, "adapter-config.yaml"))
			p := filepath.Join(dir, "a_test.yaml")
			writeText(t, p, strings.Replace(strings.ReplaceAll(fixture(t, "broken_test.yaml"), "ONPREM", onprem(t)),
				"adapter_config: "+onprem(t)+"/adapter-config.yaml", "adapter_config: adapter-config.yaml", 1))
			return setup{test: p, junit: cfg, intact: cfg, want: "an input of this run"}
		}},
		{"junit over the task config through another name", func(t *testing.T, dir string) setup {
			p := writeTest(t, "a_test.yaml", fixture(t, "broken_test.yaml"))
			link := filepath.Join(dir, "report.xml")
			task := copyFile(t, filepath.Join(onprem(t), "task-config.yaml"), filepath.Join(dir, "task.yaml"))
			if err := os.Link(task, link); err != nil {
				t.Skip(err)
			}
			writeText(t, p, strings.Replace(fixtureText(t, p), "task_config: "+onprem(t)+"/task-config.yaml", "task_config: "+task, 1))
			return setup{test: p, junit: link, intact: task, want: "an input of this run"}
		}},
		{"junit over an event document", func(t *testing.T, dir string) setup {
			ev := copyFile(t, filepath.Join(onprem(t), "dryrun/event.json"), filepath.Join(dir, "event.json"))
			p := writeTest(t, "a_test.yaml", fixture(t, "broken_test.yaml"))
			writeText(t, p, strings.Replace(fixtureText(t, p), "event: "+onprem(t)+"/dryrun/event.json", "event: "+ev, 1))
			return setup{test: p, junit: ev, intact: ev, want: "an input of this run"}
		}},
		{"junit on a FIFO", func(t *testing.T, dir string) setup {
			fifo := filepath.Join(dir, "report.xml")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Skip(err)
			}
			return setup{test: writeTest(t, "a_test.yaml", fixture(t, "broken_test.yaml")), junit: fifo, want: "not a regular file"}
		}},
		{"junit through a link leaving the folder", func(t *testing.T, dir string) setup {
			outside := filepath.Join(t.TempDir(), "victim.txt")
			writeText(t, outside, "keep me\n")
			link := filepath.Join(dir, "report.xml")
			if err := os.Symlink(outside, link); err != nil {
				t.Skip(err)
			}
			return setup{test: writeTest(t, "a_test.yaml", fixture(t, "broken_test.yaml")), junit: link, intact: outside, want: "outside its folder"}
		}},
		{"update through a linked test file outside the folder", func(t *testing.T, dir string) setup {
			real := writeTest(t, "real_test.yaml", fixture(t, "broken_test.yaml"))
			link := filepath.Join(dir, "linked_test.yaml")
			if err := os.Symlink(real, link); err != nil {
				t.Skip(err)
			}
			return setup{test: dir, intact: real, want: "outside its folder"}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			s := tt.setup(t, dir)
			var before []byte
			if s.intact != "" {
				before, _ = os.ReadFile(s.intact)
			}
			o := Options{JUnit: s.junit, Update: s.junit == ""}
			done := make(chan struct{})
			var code int
			var out, errOut string
			go func() { defer close(done); code, out, errOut = runTests(t, o, s.test) }()
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				t.Fatal("the run hangs")
			}
			if code != ExitInvalid || !strings.Contains(errOut, s.want) {
				t.Errorf("exit %d, want %d with %q\n%s%s", code, ExitInvalid, s.want, out, errOut)
			}
			if s.intact != "" {
				if after, _ := os.ReadFile(s.intact); !bytes.Equal(before, after) {
					t.Errorf("%s changed:\n%s", s.intact, after)
				}
			}
		})
	}
}

// A link to a test file inside the same folder is updated through: its
// target is rewritten and the link stays a link.
func TestUpdateThroughLinkInsideFolder(t *testing.T) {
	real := writeTest(t, "real_test.yaml", fixture(t, "broken_test.yaml"))
	link := filepath.Join(filepath.Dir(real), "linked_test.yaml")
	if err := os.Symlink("real_test.yaml", link); err != nil {
		t.Skip(err)
	}
	if code, out, errOut := runTests(t, Options{Update: true}, link); code != ExitPass {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v", err)
	}
	if code, out, _ := runTests(t, Options{}, real); code != ExitPass {
		t.Errorf("the target was not updated: exit %d\n%s", code, out)
	}
}

// No file and no folder is exit 2, as documented (finding 10).
func TestNoFilesIsInvalid(t *testing.T) {
	if code, _, errOut := runTests(t, Options{}); code != ExitInvalid || !strings.Contains(errOut, "no test files") {
		t.Errorf("exit %d: %s", code, errOut)
	}
}

func copyFile(t *testing.T, from, to string) string {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	writeText(t, to, string(data))
	return to
}

func writeText(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func fixtureText(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
