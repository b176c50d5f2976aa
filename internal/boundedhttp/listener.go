package boundedhttp

import (
	"log/slog"
	"net"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// refusalLogEvery spaces the warnings about refused connections, so a
// flood does not flood the log too.
const refusalLogEvery = time.Minute

// limitListener holds at most max accepted connections open. A connection
// counts from Accept until it is closed (by the server, a handler that
// hijacked it, or the eviction below).
type limitListener struct {
	net.Listener
	max int
	log *slog.Logger

	mu    sync.Mutex
	conns map[*trackedConn]struct{}

	refused, evicted atomic.Int64
	lastWarn         atomic.Int64 // unix nanoseconds of the last refusal warning
}

func newLimitListener(ln net.Listener, max int, log *slog.Logger) *limitListener {
	return &limitListener{Listener: ln, max: max, log: log, conns: map[*trackedConn]struct{}{}}
}

// trackedConn is an accepted connection with the server's view of it.
type trackedConn struct {
	net.Conn
	l     *limitListener
	state http.ConnState // l.mu
	since time.Time      // l.mu: when it entered state
	once  sync.Once
}

// Accept returns the next connection that fits under the cap; ones that
// do not are closed here and never reach the server.
func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if tc := l.admit(c); tc != nil {
			return tc, nil
		}
	}
}

// admit tracks c, first closing the longest-waiting connection when the
// cap is reached; nil when every tracked connection is busy (c is closed).
func (l *limitListener) admit(c net.Conn) *trackedConn {
	l.mu.Lock()
	var victim *trackedConn
	if len(l.conns) >= l.max {
		if victim = l.longestWaiting(); victim == nil {
			l.mu.Unlock()
			c.Close()
			l.refuse()
			return nil
		}
		delete(l.conns, victim)
	}
	tc := &trackedConn{Conn: c, l: l, state: http.StateNew, since: time.Now()}
	l.conns[tc] = struct{}{}
	l.mu.Unlock()
	if victim != nil {
		victim.Close()
		l.evicted.Add(1)
	}
	return tc
}

// longestWaiting is the connection waiting for a request (idle, or new
// and still sending its first headers) the longest, or nil. l.mu is held.
func (l *limitListener) longestWaiting() *trackedConn {
	var oldest *trackedConn
	for c := range l.conns {
		if c.state != http.StateIdle && c.state != http.StateNew {
			continue
		}
		if oldest == nil || c.since.Before(oldest.since) {
			oldest = c
		}
	}
	return oldest
}

// refuse counts a refused connection and warns at most once a minute.
func (l *limitListener) refuse() {
	n := l.refused.Add(1)
	now := time.Now().UnixNano()
	last := l.lastWarn.Load()
	if now-last < int64(refusalLogEvery) || !l.lastWarn.CompareAndSwap(last, now) {
		return
	}
	l.log.Warn("connection refused: every connection is busy in a handler", "max_connections", l.max, "refused_total", n)
}

// track is the server's ConnState hook: it records the state a
// connection is in (closing is seen by trackedConn.Close).
func (l *limitListener) track(c net.Conn, s http.ConnState) {
	tc, ok := c.(*trackedConn)
	if !ok || s == http.StateClosed {
		return
	}
	l.mu.Lock()
	tc.state, tc.since = s, time.Now()
	l.mu.Unlock()
}

// count is the number of tracked connections in one of states.
func (l *limitListener) count(states ...http.ConnState) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for c := range l.conns {
		if slices.Contains(states, c.state) {
			n++
		}
	}
	return n
}

// Close frees the connection's slot and closes it.
func (c *trackedConn) Close() error {
	c.once.Do(func() {
		c.l.mu.Lock()
		delete(c.l.conns, c)
		c.l.mu.Unlock()
	})
	return c.Conn.Close()
}

// CloseWrite lets the server half-close as it does on a bare TCP
// connection (after refusing an oversized body).
func (c *trackedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}
