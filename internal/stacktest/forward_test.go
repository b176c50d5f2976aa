package stacktest

import (
	"bufio"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// An echo server behind a Forwarder: bytes go both ways, a half-close
// reaches the target, several connections at once, and Close ends the
// listener and the connections still open.
func TestForwarder(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { defer c.Close(); _, _ = io.Copy(c, c) }()
		}
	}()
	f, err := Forward("127.0.0.1", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	if f.Addr == ln.Addr().String() || !strings.HasPrefix(f.Addr, "127.0.0.1:") {
		t.Fatalf("forwarder listens on %s", f.Addr)
	}
	// Request then half-close: the whole answer comes back, then EOF.
	c, err := net.Dial("tcp", f.Addr)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Write([]byte("hello\n")); err != nil {
		t.Fatal(err)
	}
	_ = c.(*net.TCPConn).CloseWrite()
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	got, err := io.ReadAll(c)
	if err != nil || string(got) != "hello\n" {
		t.Fatalf("echo through the forwarder: %q, %v", got, err)
	}
	c.Close()
	// Two connections open at once, each its own stream; Close ends them.
	var open []net.Conn
	for _, msg := range []string{"one\n", "two\n"} {
		c, err := net.Dial("tcp", f.Addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := c.Write([]byte(msg)); err != nil {
			t.Fatal(err)
		}
		_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
		if line, err := bufio.NewReader(c).ReadString('\n'); err != nil || line != msg {
			t.Fatalf("got %q, %v, want %q", line, err, msg)
		}
		open = append(open, c)
	}
	f.Close()
	for _, c := range open {
		_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, err := c.Read(make([]byte, 1)); err == nil {
			t.Errorf("a connection still answers after Close")
		}
	}
	if c, err := net.DialTimeout("tcp", f.Addr, time.Second); err == nil {
		c.Close()
		t.Errorf("the forwarder still accepts after Close")
	}
}

// A target that does not answer: the forwarded connection is closed.
func TestForwarderTargetDown(t *testing.T) {
	addr, err := FreeAddr()
	if err != nil {
		t.Fatal(err)
	}
	f, err := Forward("127.0.0.1", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c, err := net.Dial("tcp", f.Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if n, err := c.Read(make([]byte, 1)); err != io.EOF {
		t.Errorf("read %d bytes, %v; want EOF", n, err)
	}
}
