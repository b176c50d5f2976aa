//go:build unix

package hyperfleetapi

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A token path that names a FIFO, a device or a file past the limit fails
// the request at once with the reason; it never hangs or reads without end.
func TestTokenFileMustBeASmallRegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	big := filepath.Join(dir, "big")
	os.WriteFile(big, []byte(strings.Repeat("t", maxTokenBytes+1)), 0o600)
	tests := []struct{ name, path, want string }{
		{"fifo", fifo, "not a regular file (a named pipe)"},
		{"device", "/dev/zero", "not a regular file (a device)"},
		{"too big", big, "larger than the limit"},
	}
	for _, tt := range tests {
		done := make(chan error, 1)
		go func() { _, err := (&tokenFile{path: tt.path}).read(); done <- err }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("%s: error %v, want %q", tt.name, err, tt.want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: reading the token hangs", tt.name)
		}
	}
}
