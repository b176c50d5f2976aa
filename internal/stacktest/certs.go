package stacktest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// CA is a throwaway certificate authority for TLS tests: an ECDSA P-256
// key and a self-signed certificate valid from an hour ago for a day.
type CA struct {
	Key  *ecdsa.PrivateKey
	Cert *x509.Certificate
}

// KeyPair is a certificate and its key, and the PEM files holding them
// once written (WriteFiles).
type KeyPair struct {
	Key               *ecdsa.PrivateKey
	Cert              *x509.Certificate
	CertFile, KeyFile string
}

// NewCA makes a CA whose subject common name is name; it fails the test on
// error.
func NewCA(t testing.TB, name string) *CA {
	t.Helper()
	key := newKey(t)
	tmpl := &x509.Certificate{
		Subject: pkix.Name{CommonName: name}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	return &CA{Key: key, Cert: sign(t, tmpl, tmpl, &key.PublicKey, key)}
}

// Issue signs tmpl (subject, names, extended key usage) for a fresh key;
// serial, validity and key usage (digital signature) are set here.
func (ca *CA) Issue(t testing.TB, tmpl *x509.Certificate) KeyPair {
	t.Helper()
	key := newKey(t)
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	return KeyPair{Key: key, Cert: sign(t, tmpl, ca.Cert, &key.PublicKey, ca.Key)}
}

// WriteCert writes the CA's certificate to dir/name as PEM and returns the
// path.
func (ca *CA) WriteCert(t testing.TB, dir, name string) string {
	t.Helper()
	return writePEM(t, dir, name, "CERTIFICATE", ca.Cert.Raw)
}

// Pool is a certificate pool holding the CA.
func (ca *CA) Pool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(ca.Cert)
	return p
}

// ServerTemplate is a serving certificate for cn, 127.0.0.1 and localhost.
func ServerTemplate(cn string) *x509.Certificate {
	return &x509.Certificate{
		Subject:     pkix.Name{CommonName: cn},
		DNSNames:    []string{"localhost"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
}

// ClientTemplate is a client certificate for user (common name) in groups
// (organizations), as Kubernetes-style authorizers read them.
func ClientTemplate(user string, groups ...string) *x509.Certificate {
	return &x509.Certificate{
		Subject:     pkix.Name{CommonName: user, Organization: groups},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
}

// WriteFiles writes the certificate to dir/<name>.pem and the key to
// dir/<name>-key.pem and returns the pair with both paths set.
func (k KeyPair) WriteFiles(t testing.TB, dir, name string) KeyPair {
	t.Helper()
	der, err := x509.MarshalECPrivateKey(k.Key)
	if err != nil {
		t.Fatal(err)
	}
	k.CertFile = writePEM(t, dir, name+".pem", "CERTIFICATE", k.Cert.Raw)
	k.KeyFile = writePEM(t, dir, name+"-key.pem", "EC PRIVATE KEY", der)
	return k
}

// TLS is the pair as a tls.Certificate (for a test server).
func (k KeyPair) TLS() tls.Certificate {
	return tls.Certificate{Certificate: [][]byte{k.Cert.Raw}, PrivateKey: k.Key, Leaf: k.Cert}
}

// writePEM writes der as one PEM block of type typ to dir/name (0600) and
// returns the path.
func writePEM(t testing.TB, dir, name, typ string, der []byte) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func newKey(t testing.TB) *ecdsa.PrivateKey {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

// sign completes tmpl (serial, validity) and signs it with signer as
// parent.
func sign(t testing.TB, tmpl, parent *x509.Certificate, pub *ecdsa.PublicKey, signer *ecdsa.PrivateKey) *x509.Certificate {
	t.Helper()
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		t.Fatal(err)
	}
	tmpl.SerialNumber = serial
	tmpl.NotBefore, tmpl.NotAfter = time.Now().Add(-time.Hour), time.Now().Add(24*time.Hour)
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, pub, signer)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return cert
}
