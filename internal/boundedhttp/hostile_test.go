package boundedhttp

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bundle-adapter/bundle-adapter/health"
)

// waitDrained waits until the server holds no connection.
func waitDrained(t *testing.T, s *Server) {
	t.Helper()
	if !waitConns(s, 0, http.StateNew, http.StateActive, http.StateIdle, http.StateHijacked) {
		t.Errorf("the server still holds %d connections", s.conns(http.StateNew, http.StateActive, http.StateIdle, http.StateHijacked))
	}
}

// firstLine sends raw on a new connection and returns the response's
// status line ("" when the server closed without answering).
func firstLine(t *testing.T, s *Server, raw string) string {
	t.Helper()
	c := dial(t, s)
	go io.WriteString(c, raw)
	c.SetReadDeadline(time.Now().Add(patience))
	line, _ := bufio.NewReader(c).ReadString('\n')
	return strings.TrimSpace(line)
}

// TestHostileClients: what an attacker on the cluster network can send to
// the health (8080) and metrics (9090) ports, each against a server with
// the adapter's limits (shortened where the case waits on one).
func TestHostileClients(t *testing.T) {
	const short = 100 * time.Millisecond
	t.Run("header trickled a byte at a time past ReadHeaderTimeout", func(t *testing.T) {
		s := start(t, nil, Limits{ReadHeaderTimeout: short})
		c := dial(t, s)
		go func() {
			io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n")
			for {
				if _, err := io.WriteString(c, "X"); err != nil {
					return
				}
				time.Sleep(10 * time.Millisecond)
			}
		}()
		if !closedByServer(c) {
			t.Error("a trickled header kept the connection")
		}
	})
	t.Run("10 MiB header streamed", func(t *testing.T) {
		s := start(t, nil, Limits{})
		c := dial(t, s)
		go func() {
			io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ")
			chunk := strings.Repeat("a", 64<<10)
			for range 160 {
				if _, err := io.WriteString(c, chunk); err != nil {
					return
				}
			}
		}()
		if !closedByServer(c) {
			t.Error("a 10 MiB header kept the connection")
		}
	})
	t.Run("1 MiB request line", func(t *testing.T) {
		s := start(t, nil, Limits{})
		if line := firstLine(t, s, "GET /"+strings.Repeat("a", 1<<20)+" HTTP/1.1\r\nHost: x\r\n\r\n"); !strings.Contains(line, " 431 ") {
			t.Errorf("got %q, want 431", line)
		}
	})
	t.Run("silent connections past the cap", func(t *testing.T) {
		s := start(t, nil, Limits{MaxConns: 4})
		var silent []net.Conn
		for range 10 {
			silent = append(silent, dial(t, s))
		}
		c := dial(t, s)
		if code, err := get(c, bufio.NewReader(c)); err != nil || code != 200 {
			t.Errorf("a probe after 10 silent connections: %d %v", code, err)
		}
		for i, sc := range silent[:6] {
			if !closedByServer(sc) {
				t.Errorf("silent connection %d still open past the cap of 4", i)
			}
		}
	})
	t.Run("200 silent connections, then a probe, at the default cap", func(t *testing.T) {
		s := start(t, nil, Limits{})
		for range 200 {
			dial(t, s)
		}
		c := dial(t, s)
		if code, err := get(c, bufio.NewReader(c)); err != nil || code != 200 {
			t.Errorf("the probe: %d %v", code, err)
		}
		if n := s.conns(http.StateNew, http.StateIdle, http.StateActive); n > MaxConns {
			t.Errorf("%d connections open, cap %d", n, MaxConns)
		}
	})
	t.Run("100 pipelined requests", func(t *testing.T) {
		s := start(t, nil, Limits{})
		c := dial(t, s)
		go io.WriteString(c, strings.Repeat("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n", 100))
		br := bufio.NewReader(c)
		c.SetReadDeadline(time.Now().Add(patience))
		for i := range 100 {
			resp, err := http.ReadResponse(br, nil)
			if err != nil || resp.StatusCode != 200 {
				t.Fatalf("response %d: %v %v", i, resp, err)
			}
			io.Copy(io.Discard, resp.Body)
		}
	})
	t.Run("pipelined requests whose responses are never read", func(t *testing.T) {
		big := strings.Repeat("m", 1<<20)
		s := start(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, big) }), Limits{WriteTimeout: short})
		c := dial(t, s)
		go io.WriteString(c, strings.Repeat("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", 10000))
		waitDrained(t, s)
	})
	t.Run("HTTP/2 prior knowledge", func(t *testing.T) {
		// Go hands "PRI *" to the handler as an HTTP/1 request (and closes
		// after the reply); the health handler has no "*": 404, no frames.
		s := start(t, health.New(nil, nil, health.Options{}), Limits{})
		if line := firstLine(t, s, "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x00\x04\x00\x00\x00\x00\x00"); line != "HTTP/1.1 404 Not Found" {
			t.Errorf("got %q, want an HTTP/1.1 404", line)
		}
		waitDrained(t, s)
	})
	t.Run("h2c upgrade", func(t *testing.T) {
		s := start(t, nil, Limits{})
		line := firstLine(t, s, "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n\r\n")
		if line != "HTTP/1.1 200 OK" {
			t.Errorf("got %q, want a plain HTTP/1.1 200", line)
		}
	})
	t.Run("chunked body that never ends", func(t *testing.T) {
		s := start(t, nil, Limits{ReadTimeout: short})
		c := dial(t, s)
		go io.WriteString(c, "POST /healthz HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n")
		if !closedByServer(c) {
			t.Error("an endless chunked body kept the connection")
		}
	})
	t.Run("Expect 100-continue with a 1 GB body", func(t *testing.T) {
		s := start(t, nil, Limits{ReadTimeout: short})
		c := dial(t, s)
		go io.WriteString(c, "POST /healthz HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 1000000000\r\n\r\n")
		if !closedByServer(c) {
			t.Error("a 1 GB body announced kept the connection")
		}
	})
	t.Run("binary garbage", func(t *testing.T) {
		s := start(t, nil, Limits{})
		if line := firstLine(t, s, "\x00\xff\x13\x37garbage\r\n\r\n"); !strings.Contains(line, " 400 ") {
			t.Errorf("got %q, want 400", line)
		}
	})
	t.Run("TLS ClientHello on the plain port", func(t *testing.T) {
		s := start(t, nil, Limits{})
		if line := firstLine(t, s, "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03"+strings.Repeat("\x00", 64)+"\r\n\r\n"); strings.Contains(line, " 200 ") {
			t.Errorf("got %q", line)
		}
	})
	t.Run("client half-closes after its request", func(t *testing.T) {
		s := start(t, nil, Limits{})
		c := dial(t, s)
		io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
		c.(*net.TCPConn).CloseWrite()
		c.SetReadDeadline(time.Now().Add(patience))
		b, err := io.ReadAll(c)
		if err != nil || !strings.HasPrefix(string(b), "HTTP/1.1 200") {
			t.Errorf("got %q %v", b, err)
		}
		waitDrained(t, s)
	})
	t.Run("2000 connections opened and dropped", func(t *testing.T) {
		s := start(t, nil, Limits{MaxConns: 8})
		for i := range 2000 {
			c, err := net.Dial("tcp", s.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			if i%2 == 0 {
				io.WriteString(c, "GET /heal")
			}
			c.Close()
		}
		waitDrained(t, s)
		c := dial(t, s)
		if code, err := get(c, bufio.NewReader(c)); err != nil || code != 200 {
			t.Errorf("after the churn: %d %v", code, err)
		}
	})
}

// TestHostileProbes: /readyz attacked through a bounded server, as serve
// wires it.
func TestHostileProbes(t *testing.T) {
	t.Run("aborted probes in a loop while Maestro answers slowly", func(t *testing.T) {
		var calls atomic.Int32
		h := health.New(map[string]health.Check{"maestro": func(ctx context.Context) error {
			calls.Add(1)
			select {
			case <-time.After(50 * time.Millisecond):
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}}, nil, health.Options{CacheFor: time.Hour, Timeout: patience})
		s := start(t, h, Limits{})
		url := "http://" + s.Addr().String() + "/readyz"
		impatient := &http.Client{Timeout: time.Millisecond}
		for range 50 {
			if resp, err := impatient.Get(url); err == nil {
				resp.Body.Close()
			}
		}
		resp, err := (&http.Client{Timeout: patience}).Get(url)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("after 50 aborted probes: %d", resp.StatusCode)
		}
		if n := calls.Load(); n != 1 {
			t.Errorf("the check ran %d times, want 1", n)
		}
	})
	t.Run("200 concurrent probes while Maestro is down", func(t *testing.T) {
		var calls atomic.Int32
		h := health.New(map[string]health.Check{"maestro": func(ctx context.Context) error {
			calls.Add(1)
			<-ctx.Done() // Maestro never answers
			return errors.New("maestro: connection timed out")
		}}, nil, health.Options{CacheFor: time.Hour, Timeout: 200 * time.Millisecond})
		s := start(t, h, Limits{})
		url := "http://" + s.Addr().String() + "/readyz"
		client := &http.Client{Timeout: patience, Transport: &http.Transport{DisableKeepAlives: true}}
		var wg sync.WaitGroup
		var ready, answered atomic.Int32
		for range 200 {
			wg.Go(func() {
				resp, err := client.Get(url)
				if err != nil {
					return // refused past the cap while all were in the handler
				}
				resp.Body.Close()
				answered.Add(1)
				if resp.StatusCode == 200 {
					ready.Add(1)
				}
			})
		}
		wg.Wait()
		if ready.Load() != 0 || answered.Load() == 0 {
			t.Errorf("%d answered, %d ready: want some answered, none ready", answered.Load(), ready.Load())
		}
		if n := calls.Load(); n != 1 {
			t.Errorf("200 probes ran the check %d times, want 1", n)
		}
		waitDrained(t, s)
	})
}
