//go:build unix

package main

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The files dry-run reads are regular files: a FIFO given for the event,
// the Maestro state or the API responses fails at once (exit 3 or 2) with
// the flag named, instead of hanging.
func TestDryRunRefusesNonRegularFiles(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	event := ex + "onprem/dryrun/event.json"
	for _, flag := range []string{"--event", "--maestro-state", "--api-responses"} {
		t.Run(flag, func(t *testing.T) {
			args := []string{"--event", event, flag, fifo}
			done := make(chan string, 1)
			go func() { _, _, errOut := dryRun(t, "onprem", args...); done <- errOut }()
			select {
			case errOut := <-done:
				if !strings.Contains(errOut, flag+" "+fifo+": not a regular file (a named pipe)") {
					t.Errorf("stderr %q does not refuse the FIFO for %s", errOut, flag)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("dry-run hangs on a FIFO given as %s", flag)
			}
		})
	}
}
