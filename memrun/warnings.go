package memrun

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
)

// MaxWarnings bounds the warnings one run keeps; past it the last one
// says how many were left out.
const MaxWarnings = 100

// Warnings collects what the pipeline logs at warn level and above while
// it runs one event (an optional param without a value and its default
// used, a payload leaf sent as null, ...): what serve would log for the
// event, for dry-run and `bundle-adapter test` to print. Each is the
// message followed by its attributes as key=value. Safe for concurrent
// use.
type Warnings struct {
	mu      sync.Mutex
	list    []string
	dropped int
	attrs   []slog.Attr
	root    *Warnings
}

// List returns the warnings collected so far, in order.
func (w *Warnings) List() []string {
	r := w.rootOf()
	r.mu.Lock()
	defer r.mu.Unlock()
	out := append([]string(nil), r.list...)
	if r.dropped > 0 {
		out = append(out, fmt.Sprintf("(%d more warnings)", r.dropped))
	}
	return out
}

func (w *Warnings) rootOf() *Warnings {
	if w.root != nil {
		return w.root
	}
	return w
}

// Enabled is slog.Handler's: warn and above.
func (w *Warnings) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }

// Handle records one warning.
func (w *Warnings) Handle(_ context.Context, rec slog.Record) error {
	var b strings.Builder
	b.WriteString(rec.Message)
	for _, a := range w.attrs {
		b.WriteString(" " + a.String())
	}
	rec.Attrs(func(a slog.Attr) bool {
		b.WriteString(" " + a.String())
		return true
	})
	r := w.rootOf()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.list) >= MaxWarnings {
		r.dropped++
		return nil
	}
	r.list = append(r.list, b.String())
	return nil
}

// WithAttrs is slog.Handler's: the attributes are added to each warning.
func (w *Warnings) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &Warnings{attrs: append(append([]slog.Attr(nil), w.attrs...), attrs...), root: w.rootOf()}
}

// WithGroup is slog.Handler's; groups are flattened.
func (w *Warnings) WithGroup(string) slog.Handler { return w }
