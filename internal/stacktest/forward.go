package stacktest

import (
	"errors"
	"io"
	"net"
	"sync"
)

// Forwarder is a TCP forwarder: it listens on an address pods reach (the
// local node's bridge address, hack/node.sh) and copies each connection to
// a service on this host's loopback (RabbitMQ, Maestro, the recording
// API), so that pods on the node's pod network, not on hostNetwork, reach
// the tests' services without anything routed off the machine. Its methods
// may be called from any goroutine.
type Forwarder struct {
	// Addr is the address it listens on (host:port).
	Addr   string
	target string
	ln     net.Listener

	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
	wg     sync.WaitGroup
}

// Forward listens on host at a free port and forwards every connection to
// target (host:port) until Close.
func Forward(host, target string) (*Forwarder, error) {
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return nil, err
	}
	f := &Forwarder{Addr: ln.Addr().String(), target: target, ln: ln, conns: map[net.Conn]struct{}{}}
	f.wg.Add(1)
	go f.accept()
	return f, nil
}

func (f *Forwarder) accept() {
	defer f.wg.Done()
	for {
		c, err := f.ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue
		}
		f.wg.Add(1)
		go f.pipe(c)
	}
}

// track records c so that Close can close it; false when already closed.
func (f *Forwarder) track(c net.Conn) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return false
	}
	f.conns[c] = struct{}{}
	return true
}

func (f *Forwarder) untrack(c net.Conn) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.conns, c)
}

// pipe copies in both directions until either side ends; a side that ends
// its writes half-closes the other, so request-then-EOF protocols work.
func (f *Forwarder) pipe(in net.Conn) {
	defer f.wg.Done()
	defer in.Close()
	if !f.track(in) {
		return
	}
	defer f.untrack(in)
	out, err := net.Dial("tcp", f.target)
	if err != nil {
		return
	}
	defer out.Close()
	if !f.track(out) {
		return
	}
	defer f.untrack(out)
	done := make(chan struct{}, 2)
	cp := func(dst, src net.Conn) {
		_, _ = io.Copy(dst, src)
		if tc, ok := dst.(*net.TCPConn); ok {
			_ = tc.CloseWrite()
		}
		done <- struct{}{}
	}
	go cp(out, in)
	go cp(in, out)
	<-done
	<-done
}

// Close stops listening, closes every forwarded connection and waits for
// their goroutines.
func (f *Forwarder) Close() {
	f.mu.Lock()
	f.closed = true
	for c := range f.conns {
		_ = c.Close()
	}
	f.mu.Unlock()
	_ = f.ln.Close()
	f.wg.Wait()
}
