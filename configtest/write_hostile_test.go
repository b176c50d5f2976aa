//go:build unix

package configtest

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The round-4 hostile variants on what `bundle-adapter test` writes: each
// is refused (exit 2, the reason on stderr) and leaves what it names as it
// was, or (want "") is written.
func TestWritesHostileVariants(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, dir, test string) (junit, intact string)
		want  string
	}{
		{"junit is a folder", func(t *testing.T, dir, _ string) (string, string) { return dir, "" }, "not a regular file"},
		{"junit is /dev/null", func(t *testing.T, _, _ string) (string, string) { return "/dev/null", "" }, "not a regular file"},
		{"junit in a folder that does not exist", func(t *testing.T, dir, _ string) (string, string) {
			return filepath.Join(dir, "no", "report.xml"), ""
		}, "no such file"},
		{"junit names the test file through ..", func(t *testing.T, dir, test string) (string, string) {
			sub := filepath.Join(dir, "sub")
			_ = os.Mkdir(sub, 0o755)
			return filepath.Join(sub, "..", filepath.Base(test)), test
		}, "an input of this run"},
		{"junit is a link in the folder to the test file", func(t *testing.T, dir, test string) (string, string) {
			l := filepath.Join(dir, "report.xml")
			if err := os.Symlink(filepath.Base(test), l); err != nil {
				t.Skip(err)
			}
			return l, test
		}, "an input of this run"},
		{"junit is a dangling link", func(t *testing.T, dir, _ string) (string, string) {
			l := filepath.Join(dir, "report.xml")
			if err := os.Symlink(filepath.Join(dir, "nothing"), l); err != nil {
				t.Skip(err)
			}
			return l, ""
		}, "does not resolve"},
		{"junit is a link to a link leaving the folder", func(t *testing.T, dir, _ string) (string, string) {
			outside := filepath.Join(t.TempDir(), "victim")
			if err := os.WriteFile(outside, []byte("keep"), 0o644); err != nil {
				t.Fatal(err)
			}
			mid := filepath.Join(dir, "mid")
			_ = os.Symlink(outside, mid)
			l := filepath.Join(dir, "report.xml")
			_ = os.Symlink("mid", l)
			return l, outside
		}, "outside its folder"},
		{"junit is a socket", func(t *testing.T, dir, _ string) (string, string) {
			p := filepath.Join(dir, "s")
			fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
			if err != nil {
				t.Skip(err)
			}
			defer syscall.Close(fd)
			if err := syscall.Bind(fd, &syscall.SockaddrUnix{Name: p}); err != nil {
				t.Skip(err)
			}
			return p, ""
		}, "not a regular file"},
		{"junit over an earlier report is replaced", func(t *testing.T, dir, _ string) (string, string) {
			p := filepath.Join(dir, "report.xml")
			_ = os.WriteFile(p, []byte("old"), 0o600)
			return p, ""
		}, ""},
		{"junit new file", func(t *testing.T, dir, _ string) (string, string) { return filepath.Join(dir, "new.xml"), "" }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			test := filepath.Join(dir, "a_test.yaml")
			writeText(t, test, strings.ReplaceAll(fixture(t, "broken_test.yaml"), "ONPREM", onprem(t)))
			junit, intact := tt.setup(t, dir, test)
			var before []byte
			if intact != "" {
				before, _ = os.ReadFile(intact)
			}
			done := make(chan struct{})
			var code int
			var errOut string
			go func() { defer close(done); code, _, errOut = runTests(t, Options{JUnit: junit}, test) }()
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				t.Fatal("hangs")
			}
			if tt.want == "" {
				data, err := os.ReadFile(junit)
				if code != ExitFail || err != nil || !bytes.Contains(data, []byte("<testsuites")) {
					t.Fatalf("exit %d, report %v %q\n%s", code, err, data, errOut)
				}
				if left, _ := filepath.Glob(filepath.Join(dir, ".*.tmp")); len(left) > 0 {
					t.Errorf("temporary files left: %v", left)
				}
				return
			}
			if code != ExitInvalid || !strings.Contains(errOut, tt.want) {
				t.Errorf("exit %d, want %d with %q\n%s", code, ExitInvalid, tt.want, errOut)
			}
			if intact != "" {
				if after, _ := os.ReadFile(intact); !bytes.Equal(before, after) {
					t.Errorf("%s changed", intact)
				}
			}
		})
	}
}

// --update variants: an anchor elsewhere in the file (not on an edited
// value) is kept; a read-only test file keeps its mode; an alias used as
// a whole expectation is refused.
func TestUpdateHostileVariants(t *testing.T) {
	t.Run("anchor elsewhere is kept", func(t *testing.T) {
		p := writeTest(t, "a_test.yaml", strings.Replace(fixture(t, "broken_test.yaml"),
			"  now: \"2026-11-30T10:00:00Z\"", "  now: &when \"2026-11-30T10:00:00Z\"", 1)+"  - name: again\n    now: *when\n    expect:\n      resources:\n        clusterSetup: {operation: create}\n")
		if code, out, errOut := runTests(t, Options{Update: true}, p); code != ExitPass {
			t.Fatalf("exit %d\n%s%s", code, out, errOut)
		}
		if code, out, errOut := runTests(t, Options{}, p); code != ExitPass {
			t.Fatalf("after update: exit %d\n%s%s", code, out, errOut)
		}
	})
	t.Run("mode kept", func(t *testing.T) {
		p := writeTest(t, "a_test.yaml", fixture(t, "broken_test.yaml"))
		_ = os.Chmod(p, 0o640)
		if code, _, _ := runTests(t, Options{Update: true}, p); code != ExitPass {
			t.Fatal(code)
		}
		if st, _ := os.Stat(p); st.Mode().Perm() != 0o640 {
			t.Errorf("mode %v, want 0640", st.Mode().Perm())
		}
	})
	t.Run("whole expectation aliased", func(t *testing.T) {
		p := writeTest(t, "a_test.yaml", `adapter_config: ONPREM/adapter-config.yaml
task_config: ONPREM/task-config.yaml
defaults:
  event: ONPREM/dryrun/event.json
  api_responses: ONPREM/dryrun/api-responses.json
cases:
  - name: one
    expect: &e
      resources:
        clusterSetup: {operation: update}
  - name: two
    expect: *e
`)
		before, _ := os.ReadFile(p)
		code, _, errOut := runTests(t, Options{Update: true}, p)
		if after, _ := os.ReadFile(p); code != ExitInvalid || !bytes.Equal(before, after) || !strings.Contains(errOut, "anchor &e") {
			t.Errorf("exit %d, changed %v\n%s", code, !bytes.Equal(before, after), errOut)
		}
	})
}
