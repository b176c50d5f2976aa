package maestroclient_test

import (
	"errors"
	"testing"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/maestroclient"
)

// TestGRPCOverTLS runs against a server whose source gRPC API serves TLS
// (hack/maestro.sh start with MAESTRO_GRPC_TLS_CERT_FILE/KEY_FILE) and
// MAESTRO_GRPC_CA_FILE naming the CA of its certificate. The other tests
// then use TLS too; this one checks that a client which cannot verify the
// server, or speaks plaintext, fails with ErrUnavailable and writes nothing.
// Mutual TLS (authorized by a Kubernetes API server) and REST over HTTPS run
// against the real server in e2e/tls_test.go.
func TestGRPCOverTLS(t *testing.T) {
	s := requireServer(t)
	if s.grpcTLS.Insecure {
		t.Skipf("set %s to run against a TLS-serving source gRPC API", envGRPCCA)
	}
	consumer := register(t, s, "tls")
	good := newClient(t, s, nil)
	name := unique("b")
	if _, err := good.Create(t.Context(), consumer, bundle(name, "v1"), adapter.Unread); err != nil {
		t.Fatalf("Create over TLS: %v", err)
	}
	if err := good.Delete(t.Context(), consumer, name); err != nil {
		t.Fatalf("Delete over TLS: %v", err)
	}
	for label, tlsOpts := range map[string]maestroclient.TLSOptions{
		"system roots": {},
		"plaintext":    {Insecure: true},
	} {
		t.Run(label, func(t *testing.T) {
			c := newClient(t, s, func(o *maestroclient.Options) {
				o.GRPC = tlsOpts
				o.Retry.Attempts = 1
			})
			other := unique("b")
			if _, err := c.Create(t.Context(), consumer, bundle(other, "v1"), adapter.Unread); !errors.Is(err, adapter.ErrUnavailable) {
				t.Fatalf("got %v, want ErrUnavailable", err)
			}
			if _, err := good.Get(t.Context(), consumer, other); !errors.Is(err, adapter.ErrNotFound) {
				t.Fatalf("refused create left %v", err)
			}
		})
	}
}
