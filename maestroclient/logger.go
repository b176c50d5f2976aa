package maestroclient

import (
	"context"
	"log/slog"
	"sync/atomic"

	"github.com/go-logr/logr"
	"k8s.io/klog/v2"
)

// withLibraryLogger returns ctx carrying a logr logger over h for the sdk-go
// code, which logs through klog.FromContext. Its informational messages
// (one per published event) are demoted below slog's info level; errors keep
// their level.
func withLibraryLogger(ctx context.Context, h slog.Handler) context.Context {
	return klog.NewContext(ctx, logr.FromSlogHandler(h).V(1))
}

// quietOnClose demotes records to debug once closed is set: closing the
// connection makes the library report the end of its subscription as an
// error.
type quietOnClose struct {
	slog.Handler
	closed *atomic.Bool
}

func (h quietOnClose) Handle(ctx context.Context, r slog.Record) error {
	if h.closed.Load() && r.Level > slog.LevelDebug {
		if !h.Handler.Enabled(ctx, slog.LevelDebug) {
			return nil
		}
		r.Level = slog.LevelDebug
	}
	return h.Handler.Handle(ctx, r)
}

func (h quietOnClose) WithAttrs(attrs []slog.Attr) slog.Handler {
	return quietOnClose{h.Handler.WithAttrs(attrs), h.closed}
}

func (h quietOnClose) WithGroup(name string) slog.Handler {
	return quietOnClose{h.Handler.WithGroup(name), h.closed}
}
