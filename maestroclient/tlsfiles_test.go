//go:build unix

package maestroclient

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A CA file that is a FIFO, a device or huge fails at once with a clear
// error instead of hanging or reading without end.
func TestCAFileMustBeARegularFileOfBoundedSize(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "ca-fifo.pem")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	big := filepath.Join(dir, "big.pem")
	if err := os.WriteFile(big, make([]byte, maxPEMFileBytes+1), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, file, want string }{
		{"FIFO", fifo, "not a regular file"},
		{"device", "/dev/zero", "not a regular file"},
		{"too big", big, "larger than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() {
				_, err := TLSOptions{CAFile: tt.file}.tlsConfig()
				done <- err
			}()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Errorf("tlsConfig with CA %s: %v, want an error containing %q", tt.file, err, tt.want)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("tlsConfig with CA %s still reading after 5s", tt.file)
			}
		})
	}
}
