package boundedhttp

import (
	"fmt"
	"time"
)

// The limits every server gets unless Options.Limits says otherwise (the
// adapter's servers use these; tests shorten them). They are constants, not
// config keys: the endpoints serve small GETs (probes, a scrape, /config),
// and none of them needs more.
const (
	// ReadHeaderTimeout bounds reading a request's line and headers
	// (slowloris).
	ReadHeaderTimeout = 5 * time.Second
	// ReadTimeout bounds reading a whole request, body included (a body
	// trickled byte by byte).
	ReadTimeout = 10 * time.Second
	// WriteTimeout bounds the time from the end of a request's headers to
	// the end of its response (a client that does not read /metrics). It
	// covers /readyz, whose checks are bounded by 2s.
	WriteTimeout = 30 * time.Second
	// IdleTimeout closes a keep-alive connection that sends no next
	// request. It is above the usual scrape intervals (15s, 30s, 60s; the
	// chart's ServiceMonitor says 30s), so a scraper keeps its connection;
	// idle connections never hold a slot a new one needs (see MaxConns).
	IdleTimeout = 90 * time.Second
	// MaxHeaderBytes bounds a request's line and headers (Go's default is
	// 1 MiB); past it the server answers 431.
	MaxHeaderBytes = 16 << 10
	// MaxConns is the number of connections one server holds open at once
	// (per listener: health 8080 and metrics 9090 each).
	MaxConns = 64
)

// The bounds a Limits field must keep (a value outside is refused by
// Listen and Serve; zero means the default above).
const (
	maxTimeout     = 10 * time.Minute
	maxHeaderBytes = 1 << 20
	maxConns       = 4096
)

// Limits are one server's timeouts, header bound and connection cap. A zero
// field takes the default constant of the same name; a negative one, or
// one above its bound (timeouts 10m, MaxHeaderBytes 1 MiB, MaxConns 4096),
// is an error: no field can switch a limit off.
type Limits struct {
	ReadHeaderTimeout time.Duration
	ReadTimeout       time.Duration
	WriteTimeout      time.Duration
	IdleTimeout       time.Duration
	MaxHeaderBytes    int
	MaxConns          int
}

// withDefaults fills zero fields and checks the bounds.
func (l Limits) withDefaults() (Limits, error) {
	durations := []struct {
		name string
		v    *time.Duration
		def  time.Duration
	}{
		{"ReadHeaderTimeout", &l.ReadHeaderTimeout, ReadHeaderTimeout},
		{"ReadTimeout", &l.ReadTimeout, ReadTimeout},
		{"WriteTimeout", &l.WriteTimeout, WriteTimeout},
		{"IdleTimeout", &l.IdleTimeout, IdleTimeout},
	}
	for _, d := range durations {
		if *d.v == 0 {
			*d.v = d.def
		}
		if *d.v < 0 || *d.v > maxTimeout {
			return l, fmt.Errorf("%s %v: must be between 0 (the default, %v) and %v", d.name, *d.v, d.def, maxTimeout)
		}
	}
	ints := []struct {
		name     string
		v        *int
		def, max int
	}{
		{"MaxHeaderBytes", &l.MaxHeaderBytes, MaxHeaderBytes, maxHeaderBytes},
		{"MaxConns", &l.MaxConns, MaxConns, maxConns},
	}
	for _, n := range ints {
		if *n.v == 0 {
			*n.v = n.def
		}
		if *n.v < 0 || *n.v > n.max {
			return l, fmt.Errorf("%s %d: must be between 0 (the default, %d) and %d", n.name, *n.v, n.def, n.max)
		}
	}
	return l, nil
}
