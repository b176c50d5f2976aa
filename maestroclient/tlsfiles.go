package maestroclient

import (
	"crypto/tls"
	"fmt"
	"io"
	"os"
	"syscall"
)

// maxPEMFileBytes bounds a CA bundle, client certificate, key or token
// file: a misconfigured path to a device or a growing file fails instead of
// reading without end.
const maxPEMFileBytes = 1 << 20

// readSmallFile reads a regular file of at most maxPEMFileBytes. It opens
// without blocking (a FIFO does not hang the open), checks the opened
// file, and reads through an io.LimitReader, so a file that grows after the
// check is still bounded.
func readSmallFile(file string) ([]byte, error) {
	f, err := os.OpenFile(file, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", file)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxPEMFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxPEMFileBytes {
		return nil, fmt.Errorf("%s: larger than %d bytes", file, maxPEMFileBytes)
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
