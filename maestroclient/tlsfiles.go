package maestroclient

import (
	"crypto/tls"
	"fmt"

	"github.com/bundle-adapter/bundle-adapter/internal/boundedfile"
)

// maxPEMFileBytes bounds a CA bundle, client certificate, key or token
// file: a misconfigured path to a device or a growing file fails instead of
// reading without end.
const maxPEMFileBytes = 1 << 20

// readSmallFile reads a regular file of at most maxPEMFileBytes
// (boundedfile.Read); errors name the file.
func readSmallFile(file string) ([]byte, error) {
	data, err := boundedfile.Read(file, maxPEMFileBytes)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return data, nil
}

// loadKeyPair reads a PEM client certificate and key, each through
// readSmallFile.
func loadKeyPair(certFile, keyFile string) (tls.Certificate, error) {
	cert, err := readSmallFile(certFile)
	if err != nil {
		return tls.Certificate{}, err
	}
	key, err := readSmallFile(keyFile)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.X509KeyPair(cert, key)
}
