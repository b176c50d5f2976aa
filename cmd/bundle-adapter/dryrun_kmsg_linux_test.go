//go:build linux

package main

import (
	"os"
	"strings"
	"testing"
	"time"
)

// A regular file whose read blocks (/proc/kmsg, as root) given to any file
// flag of dry-run fails within the read deadline, naming the flag, instead
// of hanging (issue 28 #10).
func TestDryRunBlockingRegularFile(t *testing.T) {
	const kmsg = "/proc/kmsg"
	if f, err := os.Open(kmsg); err != nil {
		t.Skipf("%s: %v", kmsg, err)
	} else {
		f.Close()
	}
	event := ex + "onprem/dryrun/event.json"
	for _, flag := range []string{"--event", "--maestro-state", "--api-responses", "--discovery"} {
		t.Run(flag, func(t *testing.T) {
			args := []string{"--event", event, flag, kmsg}
			done := make(chan string, 1)
			go func() { _, _, errOut := dryRun(t, "onprem", args...); done <- errOut }()
			select {
			case errOut := <-done:
				if !strings.Contains(errOut, flag+" "+kmsg) || !strings.Contains(errOut, "read did not finish") {
					t.Errorf("stderr %q does not name %s and the read deadline", errOut, flag)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("dry-run hangs on %s given as %s", kmsg, flag)
			}
		})
	}
}
