package tracing

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/bundle-adapter/bundle-adapter/internal/secret"
)

// Setup refuses to let the exporter read a file variable that ReadFiles
// did not read, and once they are read hides them from the exporter.
func TestSetupFileEnv(t *testing.T) {
	c := Config{Enabled: true, Endpoint: secret.NewURL("http://127.0.0.1:4317"), Protocol: ProtocolGRPC}
	t.Setenv(EnvTracesCertificate, "/dev/zero")
	if _, err := Setup(context.Background(), c); err == nil || !strings.Contains(err.Error(), EnvTracesCertificate) {
		t.Fatalf("Setup with an unread %s: %v", EnvTracesCertificate, err)
	}
	if _, err := ReadFiles(os.LookupEnv); err == nil || !strings.Contains(err.Error(), EnvTracesCertificate+"=/dev/zero") {
		t.Fatalf("ReadFiles on /dev/zero: %v", err)
	}
	t.Setenv(EnvTracesCertificate, "")
	t.Setenv(EnvClientKey, "files.go")
	if _, err := ReadFiles(os.LookupEnv); err == nil || !strings.Contains(err.Error(), "set together") {
		t.Fatalf("ReadFiles with a key and no certificate: %v", err)
	}
	t.Setenv(EnvClientKey, "")
	c.FilesRead = true
	p, err := Setup(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Shutdown(context.Background())
	for _, name := range FileEnv {
		if _, ok := os.LookupEnv(name); ok {
			t.Errorf("%s still in the environment after Setup", name)
		}
	}
}
