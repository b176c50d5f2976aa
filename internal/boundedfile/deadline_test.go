//go:build linux

package boundedfile

import (
	"strings"
	"testing"
	"time"
)

// A regular file whose read blocks (/proc/kmsg waits for the next kernel
// message; it is pollable, so O_NONBLOCK alone parks Go's read in the
// poller) fails within the read deadline instead of hanging the caller.
func TestReadBlockingRegularFile(t *testing.T) {
	const kmsg = "/proc/kmsg"
	if err := Check(kmsg, 1<<20); err != nil {
		t.Skipf("%s: %v", kmsg, err)
	}
	done := make(chan error, 1)
	start := time.Now()
	go func() { _, err := Read(kmsg, 1<<20); done <- err }()
	select {
	case err := <-done:
		if err == nil {
			// A kernel message was pending: nothing blocked. Not what
			// this test is about, but not a hang either.
			t.Skipf("%s had data to read", kmsg)
		}
		if !strings.Contains(err.Error(), "read") || time.Since(start) > ReadDeadline+time.Second {
			t.Fatalf("Read error %v after %v", err, time.Since(start))
		}
	case <-time.After(ReadDeadline + 5*time.Second):
		t.Fatalf("Read of %s still blocked after %v", kmsg, ReadDeadline+5*time.Second)
	}
}
