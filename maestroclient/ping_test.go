package maestroclient

import (
	"crypto/x509"
	"encoding/pem"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
)

// Ping uses the pool's REST TLS settings: a server signed by a private CA
// answers when that CA is configured and is refused when it is not; a 5xx
// is an error.
func TestPingUsesRESTTLS(t *testing.T) {
	code := http.StatusOK
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/maestro/v1" {
			http.NotFound(w, r)
			return
		}
		w.WriteHeader(code)
	}))
	defer srv.Close()
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	pemBytes := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	if err := os.WriteFile(caFile, pemBytes, 0o600); err != nil {
		t.Fatal(err)
	}
	newPool := func(httpTLS TLSOptions) *Pool {
		p, err := NewPool(t.Context(), Options{GRPC: TLSOptions{Insecure: true}, HTTPURL: srv.URL, HTTP: httpTLS, Clients: 1})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.Close() })
		return p
	}
	trusted, untrusted := newPool(TLSOptions{CAFile: caFile}), newPool(TLSOptions{})
	if err := trusted.Ping(t.Context()); err != nil {
		t.Errorf("trusted CA: %v", err)
	}
	var unknownAuthority x509.UnknownAuthorityError
	if err := untrusted.Ping(t.Context()); err == nil || !errors.As(err, &unknownAuthority) {
		t.Errorf("system roots: got %v, want an unknown authority error", err)
	}
	code = http.StatusServiceUnavailable
	if err := trusted.Ping(t.Context()); err == nil {
		t.Error("503: want an error")
	}
}
