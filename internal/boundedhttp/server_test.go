package boundedhttp

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"
)

// patience bounds every wait on an event in these tests: generous, so a
// loaded machine does not fail them; a limit that does not act makes the
// wait run out.
const patience = 10 * time.Second

// start serves h with limits on a loopback port until the test ends.
func start(t *testing.T, h http.Handler, l Limits) *Server {
	t.Helper()
	if h == nil {
		h = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok") })
	}
	s, err := Listen("127.0.0.1:0", h, Options{Name: "test", Limits: l})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func dial(t *testing.T, s *Server) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", s.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// get sends one keep-alive GET on c and reads its response.
func get(c net.Conn, br *bufio.Reader) (int, error) {
	if _, err := io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		return 0, err
	}
	c.SetReadDeadline(time.Now().Add(patience))
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		return 0, err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, err
}

// closedByServer reads c until it fails: true when the server closed it
// (EOF or reset), false when the read waited out patience.
func closedByServer(c net.Conn) bool {
	c.SetReadDeadline(time.Now().Add(patience))
	_, err := io.Copy(io.Discard, c)
	return !errors.Is(err, os.ErrDeadlineExceeded)
}

// waitConns waits until the server holds n connections in the states
// (false: it never did within patience).
func waitConns(s *Server, n int, states ...http.ConnState) bool {
	deadline := time.Now().Add(patience)
	for time.Now().Before(deadline) {
		if s.conns(states...) == n {
			return true
		}
		time.Sleep(5 * time.Millisecond)
	}
	return false
}

// TestIdleConnectionsPastTheCapAreClosed: keep-alive connections that
// send nothing more (issue 28, finding 7: 5,000 of them stayed open) never
// take more than MaxConns; a new one closes the one idle the longest.
func TestIdleConnectionsPastTheCapAreClosed(t *testing.T) {
	const limit, extra = 3, 4
	s := start(t, nil, Limits{MaxConns: limit})
	var conns []net.Conn
	for i := range limit + extra {
		c := dial(t, s)
		if code, err := get(c, bufio.NewReader(c)); err != nil || code != 200 {
			t.Fatalf("connection %d: %d %v", i, code, err)
		}
		conns = append(conns, c)
		waitConns(s, min(i+1, limit), http.StateIdle)
	}
	for i, c := range conns[:extra] {
		if !closedByServer(c) {
			t.Errorf("idle connection %d of %d still open past the cap of %d", i, limit+extra, limit)
		}
	}
	for i, c := range conns[extra:] {
		if code, err := get(c, bufio.NewReader(c)); err != nil || code != 200 {
			t.Errorf("newest connection %d was closed: %d %v", extra+i, code, err)
		}
	}
}

// TestBusyConnectionsAtTheCapRefuseTheNext: when every connection is in a
// handler, a new one is closed at once, and served again once one ends.
func TestBusyConnectionsAtTheCapRefuseTheNext(t *testing.T) {
	release := make(chan struct{})
	s := start(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { <-release }), Limits{MaxConns: 2})
	busy := []net.Conn{dial(t, s), dial(t, s)}
	for _, c := range busy {
		io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	}
	if !waitConns(s, 2, http.StateActive) {
		t.Fatal("the server never had 2 connections in handlers")
	}
	if c := dial(t, s); !closedByServer(c) {
		t.Error("a connection past the cap of 2 busy ones was kept")
	}
	close(release)
	// Until their responses are out the two are still busy; then they
	// wait for a next request, and the newest connection takes one's slot.
	if !waitConns(s, 2, http.StateIdle) {
		t.Fatal("the released connections never became idle")
	}
	c := dial(t, s)
	if code, err := get(c, bufio.NewReader(c)); err != nil || code != 200 {
		t.Errorf("once the handlers returned, a new connection got %d %v", code, err)
	}
}

// TestIdleTimeoutClosesKeepAlive: a keep-alive connection that sends no
// next request is closed after IdleTimeout.
func TestIdleTimeoutClosesKeepAlive(t *testing.T) {
	s := start(t, nil, Limits{IdleTimeout: 50 * time.Millisecond})
	c := dial(t, s)
	if code, err := get(c, bufio.NewReader(c)); err != nil || code != 200 {
		t.Fatalf("%d %v", code, err)
	}
	if !closedByServer(c) {
		t.Error("an idle keep-alive connection stayed open past IdleTimeout")
	}
}

// TestSlowClientsAreCut: each way a client can hold a connection by being
// slow ends at its timeout, and an oversized header is refused.
func TestSlowClientsAreCut(t *testing.T) {
	const short = 100 * time.Millisecond
	wrote := make(chan error, 1)
	big := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		chunk := strings.Repeat("x", 1<<20)
		for range 256 {
			if _, err := io.WriteString(w, chunk); err != nil {
				wrote <- err
				return
			}
		}
		wrote <- nil
	})
	tests := []struct {
		name   string
		limits Limits
		h      http.Handler
		send   string
		check  func(t *testing.T, c net.Conn)
	}{
		{"request line and headers never end", Limits{ReadHeaderTimeout: short}, nil,
			"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: 1\r\n",
			func(t *testing.T, c net.Conn) {
				if !closedByServer(c) {
					t.Error("a request whose headers never end held the connection")
				}
			}},
		{"body trickled after the response", Limits{ReadTimeout: short}, nil,
			"POST /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\nfirst bytes",
			func(t *testing.T, c net.Conn) {
				if !closedByServer(c) {
					t.Error("a body that never ends held the connection")
				}
			}},
		{"response never read", Limits{WriteTimeout: short}, big,
			"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n",
			func(t *testing.T, _ net.Conn) {
				select {
				case err := <-wrote:
					if err == nil {
						t.Error("256 MiB were written to a client that reads nothing")
					}
				case <-time.After(patience):
					t.Error("the handler's write to a client that reads nothing never timed out")
				}
			}},
		{"header over MaxHeaderBytes", Limits{}, nil,
			"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", 64<<10) + "\r\n\r\n",
			func(t *testing.T, c net.Conn) {
				c.SetReadDeadline(time.Now().Add(patience))
				resp, err := http.ReadResponse(bufio.NewReader(c), nil)
				if err != nil || resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
					t.Errorf("64 KiB header: %v %v, want 431", resp, err)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := start(t, tt.h, tt.limits)
			c := dial(t, s)
			go io.WriteString(c, tt.send)
			tt.check(t, c)
		})
	}
}

func TestLimitsBounds(t *testing.T) {
	tests := []struct {
		name string
		l    Limits
		want string
	}{
		{"negative timeout switches nothing off", Limits{IdleTimeout: -1}, "IdleTimeout"},
		{"timeout past 10m", Limits{WriteTimeout: time.Hour}, "WriteTimeout"},
		{"negative cap", Limits{MaxConns: -1}, "MaxConns"},
		{"cap past 4096", Limits{MaxConns: 5000}, "MaxConns"},
		{"header past 1 MiB", Limits{MaxHeaderBytes: 2 << 20}, "MaxHeaderBytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Listen("127.0.0.1:0", http.NotFoundHandler(), Options{Limits: tt.l})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err %v, want one naming %s", err, tt.want)
			}
		})
	}
	l, err := Limits{}.withDefaults()
	if err != nil || l != (Limits{ReadHeaderTimeout, ReadTimeout, WriteTimeout, IdleTimeout, MaxHeaderBytes, MaxConns}) {
		t.Errorf("zero limits = %+v %v, want the defaults", l, err)
	}
}
