package maestroclient

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
)

// tlsConfig builds the client TLS configuration, or nil for plaintext. The
// CA bundle is read once; the client key pair is read on every handshake.
func (t TLSOptions) tlsConfig() (*tls.Config, error) {
	if t.Insecure {
		return nil, nil
	}
	cfg := &tls.Config{
		MinVersion:         tls.VersionTLS12,
		ServerName:         t.ServerName,
		InsecureSkipVerify: t.InsecureSkipVerify, //nolint:gosec // opt-in, documented as test-only
	}
	if t.CAFile != "" {
		pool, err := loadCAs(t.CAFile)
		if err != nil {
			return nil, err
		}
		cfg.RootCAs = pool
	}
	if t.CertFile != "" {
		if _, err := loadKeyPair(t.CertFile, t.KeyFile); err != nil {
			return nil, fmt.Errorf("load client certificate %s: %w", t.CertFile, err)
		}
		cfg.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
			pair, err := loadKeyPair(t.CertFile, t.KeyFile)
			return &pair, err
		}
	}
	return cfg, nil
}

func loadCAs(file string) (*x509.CertPool, error) {
	pem, err := readSmallFile(file)
	if err != nil {
		return nil, fmt.Errorf("read CA file: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("CA file %s holds no PEM certificate", file)
	}
	return pool, nil
}
