package maestroclient

import (
	"context"
	"fmt"
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

// sdkLogger adapts slog to the ocm-sdk-go logging.Logger that maestro's
// grpcsource package expects. Its informational messages go to debug.
type sdkLogger struct{ l *slog.Logger }

func (s sdkLogger) enabled(level slog.Level) bool {
	return s.l.Enabled(context.Background(), level)
}

func (s sdkLogger) DebugEnabled() bool { return s.enabled(slog.LevelDebug) }
func (s sdkLogger) InfoEnabled() bool  { return s.enabled(slog.LevelDebug) }
func (s sdkLogger) WarnEnabled() bool  { return s.enabled(slog.LevelWarn) }
func (s sdkLogger) ErrorEnabled() bool { return s.enabled(slog.LevelError) }

func (s sdkLogger) Debug(ctx context.Context, format string, args ...any) {
	s.l.DebugContext(ctx, fmt.Sprintf(format, args...))
}

func (s sdkLogger) Info(ctx context.Context, format string, args ...any) {
	s.l.DebugContext(ctx, fmt.Sprintf(format, args...))
}

func (s sdkLogger) Warn(ctx context.Context, format string, args ...any) {
	s.l.WarnContext(ctx, fmt.Sprintf(format, args...))
}

func (s sdkLogger) Error(ctx context.Context, format string, args ...any) {
	s.l.ErrorContext(ctx, fmt.Sprintf(format, args...))
}

// Fatal logs at error level and, unlike the interface's wording, does not
// exit: a library must not end the adapter's process.
func (s sdkLogger) Fatal(ctx context.Context, format string, args ...any) {
	s.l.ErrorContext(ctx, fmt.Sprintf(format, args...))
}
