// Package boundedhttp is the one way the adapter serves HTTP. Every server
// it starts has read-header, read, write and idle timeouts, a bound on
// request header bytes, speaks HTTP/1.1 only (no HTTP/2 upgrade or prior
// knowledge), and holds at most MaxConns connections at once (see Limits
// and the constants for the values).
//
// Past the cap, the connection that has waited the longest for a request
// (idle keep-alive, or new and still sending its first headers) is closed
// to make room; when every connection is in a handler, the new one is
// closed at once. So idle connections cannot starve a probe or a scrape of
// a slot, and no client can hold more than MaxConns descriptors.
//
// The production packages create servers and listeners only here:
// TestOnlyBoundedServers fails on an http.Server, http.ListenAndServe,
// net.Listen (and the like) anywhere else in what cmd/ links.
package boundedhttp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
)

// Options name a server and set its limits.
type Options struct {
	// Name names the server in errors and logs ("health", "metrics").
	Name string
	// Log receives the server's errors (nil: slog.Default()).
	Log *slog.Logger
	// Limits are the timeouts, header bound and connection cap; zero
	// fields take the defaults.
	Limits Limits
}

// Server is an HTTP server started by Listen or Serve.
type Server struct {
	srv  *http.Server
	ln   *limitListener
	done chan struct{}
}

// Listen listens on the TCP address addr and serves h there in the
// background with o's limits, until Close or Shutdown. Limits out of their
// bounds are refused before listening.
func Listen(addr string, h http.Handler, o Options) (*Server, error) {
	if _, err := o.Limits.withDefaults(); err != nil {
		return nil, fmt.Errorf("%s server: %w", o.Name, err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("%s server: %w", o.Name, err)
	}
	s, err := Serve(ln, h, o)
	if err != nil {
		ln.Close()
	}
	return s, err
}

// Serve serves h on ln in the background with o's limits, until Close or
// Shutdown (which close ln).
func Serve(ln net.Listener, h http.Handler, o Options) (*Server, error) {
	l, err := o.Limits.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("%s server: %w", o.Name, err)
	}
	log := o.Log
	if log == nil {
		log = slog.Default()
	}
	log = log.With("server", o.Name)
	lim := newLimitListener(ln, l.MaxConns, log)
	var protocols http.Protocols
	protocols.SetHTTP1(true)
	s := &Server{ln: lim, done: make(chan struct{}), srv: &http.Server{
		Handler:           h,
		ReadHeaderTimeout: l.ReadHeaderTimeout,
		ReadTimeout:       l.ReadTimeout,
		WriteTimeout:      l.WriteTimeout,
		IdleTimeout:       l.IdleTimeout,
		MaxHeaderBytes:    l.MaxHeaderBytes,
		Protocols:         &protocols,
		ConnState:         lim.track,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}}
	go func() {
		defer close(s.done)
		if err := s.srv.Serve(lim); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error(o.Name+" server stopped", "error", err)
		}
	}()
	return s, nil
}

// Addr is the address the server listens on.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Close closes the listener and every connection at once.
func (s *Server) Close() error { return s.srv.Close() }

// Shutdown stops accepting, closes idle connections and waits for active
// ones until ctx is done (http.Server.Shutdown).
func (s *Server) Shutdown(ctx context.Context) error { return s.srv.Shutdown(ctx) }

// Refused is the number of connections closed at once because every slot
// was in a handler; Evicted the number of waiting connections closed to
// make room for a new one.
func (s *Server) Refused() int64 { return s.ln.refused.Load() }

// Evicted: see Refused.
func (s *Server) Evicted() int64 { return s.ln.evicted.Load() }

// conns counts the open connections in one of the states (tests).
func (s *Server) conns(states ...http.ConnState) int { return s.ln.count(states...) }
