//go:build unix

package boundedfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Only a regular file within the limit is read; a FIFO, a device, a
// directory or a bigger file fails at once, never hangs or reads on.
func TestRead(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	small, big := filepath.Join(dir, "small"), filepath.Join(dir, "big")
	os.WriteFile(small, []byte("ok"), 0o600)
	os.WriteFile(big, make([]byte, 101), 0o600)
	tests := []struct {
		name, path, want string
		tooLarge         bool
	}{
		{"regular", small, "", false},
		{"FIFO", fifo, "not a regular file (a named pipe)", false},
		{"device", "/dev/zero", "not a regular file (a device)", false},
		{"directory", dir, "not a regular file (a directory)", false},
		{"too big", big, "file of 101 bytes is larger than the limit of 100 bytes", true},
		{"missing", filepath.Join(dir, "none"), "no such file or directory", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			type result struct {
				data []byte
				err  error
			}
			done := make(chan result, 1)
			go func() { d, err := Read(tt.path, 100); done <- result{d, err} }()
			select {
			case r := <-done:
				if tt.want == "" {
					if r.err != nil || string(r.data) != "ok" {
						t.Fatalf("Read = %q, %v", r.data, r.err)
					}
					return
				}
				if r.err == nil || !strings.Contains(r.err.Error(), tt.want) {
					t.Fatalf("Read error %v, want %q", r.err, tt.want)
				}
				if strings.Contains(r.err.Error(), tt.path) {
					t.Errorf("error %q names the path; callers do", r.err)
				}
				if errors.Is(r.err, ErrTooLarge) != tt.tooLarge {
					t.Errorf("errors.Is(ErrTooLarge) = %v", !tt.tooLarge)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("Read still reading after 5s")
			}
		})
	}
}
