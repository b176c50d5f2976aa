package shadow

import (
	"context"
	"sync"
)

// Write is one write the pipeline would have made.
type Write struct {
	// Boundary is "maestro", "kubernetes" or "api".
	Boundary string
	// Verb is create, update, delete, redelete or apply (maestro,
	// kubernetes), or the HTTP method (api).
	Verb string
	// Consumer is the Maestro consumer; Namespace the object's namespace.
	Consumer, Namespace string
	// Name is the bundle or object name; URL the API request's URL.
	Name, URL string
	// Diff lists the fields that differ between the desired object and the
	// live one ("(absent)" for a create), at most maxDiffs of them.
	Diff []string
	// Body is an API request's body; Headers its headers (never logged),
	// sent again with the read of the live status.
	Body    []byte
	Headers map[string]string
}

// Log collects the writes one event would have made. Safe for concurrent
// use.
type Log struct {
	mu     sync.Mutex
	writes []Write
}

// Writes returns a copy of the writes recorded so far.
func (l *Log) Writes() []Write {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Write(nil), l.writes...)
}

func (l *Log) add(w Write) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.writes = append(l.writes, w)
}

type logKey struct{}

// WithLog returns ctx carrying l: the decorators record the writes made
// with that context (or one derived from it) on l.
func WithLog(ctx context.Context, l *Log) context.Context {
	return context.WithValue(ctx, logKey{}, l)
}

// record adds w to the Log of ctx, if any. A write without a Log is
// dropped all the same: the decorators never write.
func record(ctx context.Context, w Write) {
	if l, ok := ctx.Value(logKey{}).(*Log); ok {
		l.add(w)
	}
}
