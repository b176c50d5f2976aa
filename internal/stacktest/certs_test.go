package stacktest

import (
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"testing"
)

// A server and a client certificate of one CA pass a mutual TLS handshake;
// a client certificate of another CA is refused.
func TestCAIssuesForMutualTLS(t *testing.T) {
	dir := t.TempDir()
	ca, other := NewCA(t, "test-ca"), NewCA(t, "other-ca")
	server := ca.Issue(t, ServerTemplate("maestro"))
	client := ca.Issue(t, ClientTemplate("user", "group")).WriteFiles(t, dir, "client")
	stranger := other.Issue(t, ClientTemplate("user", "group")).WriteFiles(t, dir, "stranger")
	if client.Cert.Subject.CommonName != "user" || client.Cert.Subject.Organization[0] != "group" {
		t.Errorf("client subject %v", client.Cert.Subject)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{server.TLS()}, ClientCAs: ca.Pool(),
		ClientAuth: tls.RequireAndVerifyClientCert, MinVersion: tls.VersionTLS12}
	srv.StartTLS()
	defer srv.Close()
	caFile := ca.WriteCert(t, dir, "ca.pem")
	for _, tt := range []struct {
		name string
		pair KeyPair
		ok   bool
	}{{"same CA", client, true}, {"other CA", stranger, false}} {
		pair, err := tls.LoadX509KeyPair(tt.pair.CertFile, tt.pair.KeyFile)
		if err != nil {
			t.Fatal(err)
		}
		roots := ca.Pool()
		c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{
			RootCAs: roots, Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}}}
		resp, err := c.Get(srv.URL)
		if err == nil {
			resp.Body.Close()
		}
		if (err == nil) != tt.ok {
			t.Errorf("%s: %v", tt.name, err)
		}
	}
	if caFile == "" {
		t.Error("no CA file")
	}
}
