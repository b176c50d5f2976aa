package e2e

import (
	"crypto/tls"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/bundle-adapter/bundle-adapter/internal/stacktest"
)

// tlsFront puts mutual TLS in front of the stack's plaintext Maestro: one
// loopback listener for the source gRPC API (ALPN h2) and one for REST
// (http/1.1), each requiring a client certificate of its CA and forwarding
// the decrypted bytes to Maestro. An adapter configured with auth.type tls
// against it reaches Maestro only with the CA, certificate and key files
// it was given.
type tlsFront struct {
	grpcAddr, restURL string
	// Files of the CA, and of a client certificate it trusts (PEM).
	caPEM, certPEM, keyPEM []byte
	// verified counts connections whose client certificate was verified,
	// by listener ("grpc", "rest").
	verified map[string]*atomic.Int64
}

func startTLSFront(t *testing.T, st *stack) *tlsFront {
	t.Helper()
	dir := t.TempDir()
	ca := stacktest.NewCA(t, "e2e-image-ca")
	server := ca.Issue(t, stacktest.ServerTemplate("maestro-front")).WriteFiles(t, dir, "server")
	client := ca.Issue(t, stacktest.ClientTemplate("bundle-adapter-image")).WriteFiles(t, dir, "client")
	f := &tlsFront{verified: map[string]*atomic.Int64{"grpc": {}, "rest": {}}}
	f.caPEM = []byte(readFile(t, ca.WriteCert(t, dir, "ca.pem")))
	f.certPEM, f.keyPEM = []byte(readFile(t, client.CertFile)), []byte(readFile(t, client.KeyFile))
	restTarget := strings.TrimPrefix(st.restURL, "http://")
	f.grpcAddr = f.listen(t, "grpc", st.grpcAddr, server.TLS(), ca, "h2")
	f.restURL = "https://" + f.listen(t, "rest", restTarget, server.TLS(), ca, "http/1.1")
	return f
}

// listen serves one TLS front for target until the test ends and returns
// its address.
func (f *tlsFront) listen(t *testing.T, name, target string, cert tls.Certificate, ca *stacktest.CA, proto string) string {
	t.Helper()
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}, ClientCAs: ca.Pool(),
		ClientAuth: tls.RequireAndVerifyClientCert, NextProtos: []string{proto}, MinVersion: tls.VersionTLS12}
	ln, err := tls.Listen("tcp", "127.0.0.1:0", cfg)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			// Forwarders end with their connections (the container is
			// stopped first); the test does not wait for them.
			go f.forward(name, c.(*tls.Conn), target)
		}
	}()
	return ln.Addr().String()
}

// forward completes the handshake (a client without a trusted certificate
// fails it), then copies bytes both ways until either side closes.
func (f *tlsFront) forward(name string, c *tls.Conn, target string) {
	defer c.Close()
	if err := c.Handshake(); err != nil || len(c.ConnectionState().VerifiedChains) == 0 {
		return
	}
	f.verified[name].Add(1)
	up, err := net.Dial("tcp", target)
	if err != nil {
		return
	}
	defer up.Close()
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(up, c); closeWrite(up); done <- struct{}{} }()
	go func() { _, _ = io.Copy(c, up); _ = c.CloseWrite(); done <- struct{}{} }()
	<-done
	<-done
}

func closeWrite(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.CloseWrite()
	}
}
