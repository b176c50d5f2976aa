//go:build unix

package maestroclient

import (
	"strings"
	"testing"
)

// TLS files are read as bounded regular files (internal/boundedfile tests
// the FIFO, directory and size cases): a CA path naming a device fails at
// once, naming the file, instead of reading without end.
func TestCAFileMustBeARegularFileOfBoundedSize(t *testing.T) {
	_, err := TLSOptions{CAFile: "/dev/zero"}.tlsConfig()
	if err == nil || !strings.Contains(err.Error(), "/dev/zero: not a regular file (a device)") {
		t.Errorf("tlsConfig with CA /dev/zero: %v, want it refused", err)
	}
}
