package maestroclient_test

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/internal/stacktest"
	"github.com/bundle-adapter/bundle-adapter/maestroclient"
)

// pki is a throwaway CA with a server and a client certificate on disk.
type pki struct {
	caFile, certFile, keyFile string
	serverCert                tls.Certificate
	pool                      *x509.CertPool
}

func newPKI(t *testing.T) pki {
	t.Helper()
	dir := t.TempDir()
	ca := stacktest.NewCA(t, "test-ca")
	client := ca.Issue(t, stacktest.ClientTemplate("bundle-adapter")).WriteFiles(t, dir, "client")
	return pki{
		caFile: ca.WriteCert(t, dir, "ca.pem"), certFile: client.CertFile, keyFile: client.KeyFile,
		serverCert: ca.Issue(t, stacktest.ServerTemplate("maestro")).TLS(), pool: ca.Pool(),
	}
}

// bundleJSON is a resource bundle as Maestro's REST API returns it, with
// agent status and feedback.
const bundleJSON = `{"id":"x","kind":"ResourceBundle","name":"x","consumer_name":"c","version":3,
"metadata":{"name":"b","namespace":"c","uid":"x","creationTimestamp":"2026-01-01T00:00:00Z",
 "deletionTimestamp":"2026-01-01T00:01:00Z","labels":{"l":"1"}},
"manifests":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"b","namespace":"default"}}],
"status":{"conditions":[{"type":"Available","status":"True","reason":"R","observedGeneration":3,
 "lastTransitionTime":"2026-01-01T00:00:00Z","message":""}],
 "resourceStatus":[{"resourceMeta":{"ordinal":0,"version":"v1","kind":"ConfigMap","name":"b","namespace":"default"},
  "statusFeedback":{"values":[{"name":"replicas","fieldValue":{"type":"Integer","integer":2}}]},
  "conditions":[{"type":"Available","status":"True","reason":"R","observedGeneration":3,
   "lastTransitionTime":"2026-01-01T00:00:00Z","message":""}]}]}}`

// mtlsServer serves bundleJSON over HTTPS and requires a client certificate.
func mtlsServer(t *testing.T, p pki) *httptest.Server {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/api/maestro/v1/resource-bundles/") {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(bundleJSON))
	}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{p.serverCert}, ClientCAs: p.pool,
		ClientAuth: tls.RequireAndVerifyClientCert, MinVersion: tls.VersionTLS12}
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // refused handshakes are the point
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv
}

// TestRESTOverMTLS reads a bundle over HTTPS with a client certificate and
// checks that status, per-manifest conditions and feedback come through.
func TestRESTOverMTLS(t *testing.T) {
	p := newPKI(t)
	srv := mtlsServer(t, p)
	tests := []struct {
		name    string
		tls     maestroclient.TLSOptions
		wantErr error
	}{
		{"mtls", maestroclient.TLSOptions{CAFile: p.caFile, CertFile: p.certFile, KeyFile: p.keyFile}, nil},
		{"skip verify", maestroclient.TLSOptions{InsecureSkipVerify: true, CertFile: p.certFile, KeyFile: p.keyFile}, nil},
		{"no client certificate", maestroclient.TLSOptions{CAFile: p.caFile}, adapter.ErrUnavailable},
		{"unknown server CA", maestroclient.TLSOptions{CertFile: p.certFile, KeyFile: p.keyFile}, adapter.ErrUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := maestroclient.New(t.Context(), maestroclient.Options{
				GRPCAddress: closedAddr(t), GRPC: maestroclient.TLSOptions{Insecure: true},
				HTTPURL: srv.URL, HTTP: tt.tls, Logger: testLogger(t),
				Retry: maestroclient.RetryOptions{Attempts: 1},
			})
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			defer c.Close()
			w, err := c.Get(t.Context(), "c", "b")
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("got %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Get: %v", err)
			}
			checkDecoded(t, w)
		})
	}
}

func checkDecoded(t *testing.T, w *workv1.ManifestWork) {
	t.Helper()
	if w.Name != "b" || w.Namespace != "c" || w.Generation != 3 || w.DeletionTimestamp == nil {
		t.Errorf("metadata: %+v", w.ObjectMeta)
	}
	if !meta.IsStatusConditionTrue(w.Status.Conditions, workv1.WorkAvailable) {
		t.Errorf("conditions: %+v", w.Status.Conditions)
	}
	m := w.Status.ResourceStatus.Manifests
	if len(m) != 1 || m[0].ResourceMeta.Kind != "ConfigMap" || len(m[0].StatusFeedbacks.Values) != 1 ||
		*m[0].StatusFeedbacks.Values[0].Value.Integer != 2 {
		t.Errorf("manifest status: %+v", m)
	}
}

func TestNewRejectsBadTLSFiles(t *testing.T) {
	dir := t.TempDir()
	notPEM := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(notPEM, []byte("nope"), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, tlsOpts := range map[string]maestroclient.TLSOptions{
		"CA not PEM":       {CAFile: notPEM},
		"CA missing":       {CAFile: filepath.Join(dir, "missing.pem")},
		"client key files": {CertFile: notPEM, KeyFile: notPEM},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := maestroclient.New(t.Context(), maestroclient.Options{HTTPURL: "https://127.0.0.1:1", HTTP: tlsOpts,
				GRPC: maestroclient.TLSOptions{Insecure: true}})
			if err == nil {
				t.Fatal("New accepted unusable TLS files")
			}
		})
	}
}
