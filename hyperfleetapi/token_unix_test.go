//go:build unix

package hyperfleetapi

import (
	"strings"
	"testing"
)

// The token file is read as a bounded regular file (internal/boundedfile):
// a token path naming a device fails the request with the reason instead of
// reading without end.
func TestTokenFileMustBeARegularFile(t *testing.T) {
	_, err := (&tokenFile{path: "/dev/zero"}).read()
	if err == nil || !strings.Contains(err.Error(), "API token file /dev/zero: not a regular file (a device)") {
		t.Errorf("error %v, want the device refused", err)
	}
}
