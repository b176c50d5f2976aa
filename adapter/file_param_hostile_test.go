//go:build linux

package adapter_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A {file:} param whose file is swapped, after load, for something hostile
// fails the event (redelivered) naming the file, within the read deadline;
// it never hangs a worker or reads without end (issue 28 #10).
func TestParamFileSourceHostile(t *testing.T) {
	cases := []struct {
		name string
		swap func(t *testing.T, path string)
		want string
	}{
		{"FIFO", func(t *testing.T, p string) { must(t, syscall.Mkfifo(p, 0o600)) }, "named pipe"},
		{"symlink to /dev/zero", func(t *testing.T, p string) { must(t, os.Symlink("/dev/zero", p)) }, "device"},
		{"symlink loop", func(t *testing.T, p string) { must(t, os.Symlink(p, p)) }, "too many levels of symbolic links"},
		{"directory", func(t *testing.T, p string) { must(t, os.Mkdir(p, 0o700)) }, "directory"},
		{"2 MiB", func(t *testing.T, p string) { must(t, os.WriteFile(p, make([]byte, 2<<20), 0o600)) }, "larger than the limit"},
		{"symlink to /proc/kmsg", func(t *testing.T, p string) {
			if _, err := os.Stat("/proc/kmsg"); err != nil {
				t.Skip("no /proc/kmsg")
			}
			must(t, os.Symlink("/proc/kmsg", p))
		}, "read did not finish"},
		{"gone", func(*testing.T, string) {}, "no such file"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			token := filepath.Join(t.TempDir(), "token")
			must(t, os.WriteFile(token, []byte("s3cret"), 0o600))
			task := writeTask(t, `params:
  - {name: clusterId, source: event.id, required: true}
  - {name: token, source: {file: {path: `+token+`}}, required: true}
post:
  post_actions:
    - name: report
      api_call: {method: PUT, url: "/clusters/{{ .clusterId }}/statuses", body: "{}"}
`)
			h := newHarness(t, "")
			h.useTask(task)
			must(t, os.Remove(token))
			c.swap(t, token)
			start := time.Now()
			res := h.event(nil)
			if res.Error == nil || !strings.Contains(res.Error.Error(), c.want) || !strings.Contains(res.Error.Error(), token) {
				t.Fatalf("event error %v, want one naming %s: %s", res.Error, token, c.want)
			}
			if took := time.Since(start); took > 5*time.Second {
				t.Errorf("took %v", took)
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
