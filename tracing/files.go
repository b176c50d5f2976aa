package tracing

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"

	"github.com/bundle-adapter/bundle-adapter/internal/boundedfile"
)

// The OTLP exporters read these variables as file paths themselves
// (os.ReadFile, unbounded; a missing file is only logged and TLS quietly
// falls back). Here they are read once through boundedfile by ReadFiles and
// handed to the exporter as a *tls.Config; Setup then removes them from the
// process environment so that the exporter finds nothing to read. The
// TRACES_ variables win over the general ones, as in the exporter.
const (
	EnvCertificate             = "OTEL_EXPORTER_OTLP_CERTIFICATE"
	EnvTracesCertificate       = "OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE"
	EnvClientCertificate       = "OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE"
	EnvClientKey               = "OTEL_EXPORTER_OTLP_CLIENT_KEY"
	EnvTracesClientCertificate = "OTEL_EXPORTER_OTLP_TRACES_CLIENT_CERTIFICATE"
	EnvTracesClientKey         = "OTEL_EXPORTER_OTLP_TRACES_CLIENT_KEY"
)

// FileEnv lists every variable the OTLP exporters read as a file path.
// The class test in this package checks it against the exporters' source.
var FileEnv = []string{
	EnvCertificate, EnvTracesCertificate,
	EnvClientCertificate, EnvClientKey,
	EnvTracesClientCertificate, EnvTracesClientKey,
}

// MaxTLSFileBytes bounds each CA bundle, certificate or key file.
const MaxTLSFileBytes = 1 << 20

// ReadFiles reads the files the FileEnv variables name (through lookup,
// os.LookupEnv in production) and returns the TLS configuration the
// exporter would have built from them, or nil when none is set. Each file
// is a regular file of at most MaxTLSFileBytes (boundedfile.Read: a device,
// a FIFO, a missing or too large file is refused); every error names the
// variable. A client certificate without its key (or the reverse) is
// refused, where the exporter ignores both silently.
func ReadFiles(lookup func(string) (string, bool)) (*tls.Config, error) {
	var errs []error
	c := &tls.Config{}
	set := false
	for _, name := range []string{EnvCertificate, EnvTracesCertificate} {
		pool, ok, err := readPool(lookup, name)
		errs = append(errs, err)
		if ok {
			c.RootCAs, set = pool, true
		}
	}
	for _, pair := range [][2]string{{EnvClientCertificate, EnvClientKey}, {EnvTracesClientCertificate, EnvTracesClientKey}} {
		cert, ok, err := readKeyPair(lookup, pair[0], pair[1])
		errs = append(errs, err)
		if ok {
			c.Certificates, set = []tls.Certificate{cert}, true
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("tracing: %w", err)
	}
	if !set {
		return nil, nil
	}
	return c, nil
}

func readPool(lookup func(string) (string, bool), name string) (*x509.CertPool, bool, error) {
	data, ok, err := readVar(lookup, name)
	if !ok || err != nil {
		return nil, false, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(data) {
		return nil, false, fmt.Errorf("%s: %s holds no PEM certificate", name, value(lookup, name))
	}
	return pool, true, nil
}

func readKeyPair(lookup func(string) (string, bool), certName, keyName string) (tls.Certificate, bool, error) {
	cert, okc, errc := readVar(lookup, certName)
	key, okk, errk := readVar(lookup, keyName)
	if err := errors.Join(errc, errk); err != nil {
		return tls.Certificate{}, false, err
	}
	if okc != okk {
		return tls.Certificate{}, false, fmt.Errorf("%s and %s must be set together", certName, keyName)
	}
	if !okc {
		return tls.Certificate{}, false, nil
	}
	pair, err := tls.X509KeyPair(cert, key)
	if err != nil {
		return tls.Certificate{}, false, fmt.Errorf("%s and %s: %w", certName, keyName, err)
	}
	return pair, true, nil
}

// readVar reads the file variable name names; not set (or empty, which
// the exporter treats as not set) is ok=false.
func readVar(lookup func(string) (string, bool), name string) ([]byte, bool, error) {
	path := value(lookup, name)
	if path == "" {
		return nil, false, nil
	}
	data, err := boundedfile.Read(path, MaxTLSFileBytes)
	if err != nil {
		return nil, false, fmt.Errorf("%s=%s: %w", name, path, err)
	}
	return data, true, nil
}

func value(lookup func(string) (string, bool), name string) string {
	v, _ := lookup(name)
	return v
}

// hideFileEnv removes the FileEnv variables from the process environment,
// so that the exporter, which reads them on its own when it is built,
// finds nothing to read: their files were read by ReadFiles.
func hideFileEnv() error {
	for _, name := range FileEnv {
		if err := os.Unsetenv(name); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	return nil
}
