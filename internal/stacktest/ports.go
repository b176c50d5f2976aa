package stacktest

import (
	"net"
)

// FreeAddr returns "127.0.0.1:<port>" for a loopback port that is free right
// now. Another process may take it before the caller listens on it.
func FreeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// FreePorts returns n distinct loopback ports that are free right now (all
// held open until every one is picked, so none repeats).
func FreePorts(n int) ([]string, error) {
	ports := make([]string, 0, n)
	for len(ports) < n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		defer ln.Close()
		_, port, _ := net.SplitHostPort(ln.Addr().String())
		ports = append(ports, port)
	}
	return ports, nil
}
