package pubsub

import (
	"bytes"
	"context"
	"net"
	"testing"
	"time"

	"google.golang.org/api/option"
)

// An endpoint is reached in plaintext without credentials only when it is a
// loopback address or Insecure says so; any other endpoint gets TLS (and
// the credentials of ClientOptions or Application Default Credentials).
// The listener sees the first bytes the client sends: a TLS ClientHello
// starts with 0x16, plaintext HTTP/2 with "PRI * HTTP/2.0".
func TestEndpointPlaintextOnlyWhenExplicit(t *testing.T) {
	host := nonLoopbackIP(t)
	tests := []struct {
		name      string
		host      string
		insecure  bool
		wantPlain bool
	}{
		{"non-loopback endpoint: TLS", host, false, false},
		{"non-loopback endpoint with Insecure: plaintext", host, true, true},
		{"loopback endpoint: plaintext (emulator, pstest)", "127.0.0.1", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			first := firstBytes(t, tt.host, func(addr string) {
				ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
				defer cancel()
				c, err := New(ctx, Options{ProjectID: project, Topic: "t", SubscriptionID: "s", Endpoint: addr,
					Insecure: tt.insecure, ClientOptions: []option.ClientOption{option.WithoutAuthentication()}})
				if err == nil {
					_ = c.Close()
				}
			})
			plain := bytes.HasPrefix(first, []byte("PRI * HTTP/2.0"))
			tls := len(first) > 0 && first[0] == 0x16
			if plain != tt.wantPlain || (!tt.wantPlain && !tls) {
				t.Errorf("first bytes %q: plaintext %v, want plaintext %v", first, plain, tt.wantPlain)
			}
		})
	}
}

func TestEndpointIsLoopback(t *testing.T) {
	for ep, want := range map[string]bool{
		"127.0.0.1:8085": true, "127.9.9.9:1": true, "[::1]:8085": true, "localhost:8085": true,
		"pubsub.example.com:443": false, "10.0.0.5:8085": false, "localhost.evil.example:1": false,
		"127.0.0.1.nip.io:1": false, "": false,
	} {
		if got := loopbackEndpoint(ep); got != want {
			t.Errorf("loopbackEndpoint(%q) = %v, want %v", ep, got, want)
		}
	}
}

// nonLoopbackIP is an address of this machine that is not loopback.
func nonLoopbackIP(t *testing.T) string {
	t.Helper()
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Skip(err)
	}
	for _, a := range addrs {
		if ipn, ok := a.(*net.IPNet); ok && !ipn.IP.IsLoopback() && ipn.IP.To4() != nil {
			return ipn.IP.String()
		}
	}
	t.Skip("no non-loopback IPv4 address")
	return ""
}

// firstBytes listens on host, runs dial with the listener's address and
// returns the first bytes the first connection sent.
func firstBytes(t *testing.T, host string, dial func(addr string)) []byte {
	t.Helper()
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		t.Skip(err)
	}
	defer ln.Close()
	got := make(chan []byte, 1)
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			got <- nil
			return
		}
		defer conn.Close()
		_ = conn.SetReadDeadline(time.Now().Add(3 * time.Second))
		buf := make([]byte, 14)
		n, _ := conn.Read(buf)
		got <- buf[:n]
	}()
	dial(ln.Addr().String())
	select {
	case b := <-got:
		return b
	case <-time.After(5 * time.Second):
		t.Fatal("the client never connected")
		return nil
	}
}
