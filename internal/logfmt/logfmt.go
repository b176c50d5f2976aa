// Package logfmt holds the one slog attribute rewrite every log handler of
// the repository uses (Options): a time.Duration is written as text ("8s",
// "1m30s", "200ms"), never as the integer of nanoseconds slog's JSON
// handler writes by default ("retry_in":8000000000).
package logfmt

import (
	"log/slog"
	"time"
)

// ReplaceAttr writes a duration attribute as its text form
// (time.Duration.String); every other attribute is returned unchanged.
// It is slog.HandlerOptions.ReplaceAttr's signature; groups are ignored
// (slog calls it for the attributes inside groups too).
func ReplaceAttr(_ []string, a slog.Attr) slog.Attr {
	if a.Value.Kind() == slog.KindDuration {
		return slog.String(a.Key, a.Value.Duration().String())
	}
	if d, ok := a.Value.Any().(time.Duration); ok {
		return slog.String(a.Key, d.String())
	}
	return a
}

// Options are the handler options of every log handler: level and
// ReplaceAttr.
func Options(level slog.Leveler) *slog.HandlerOptions {
	return &slog.HandlerOptions{Level: level, ReplaceAttr: ReplaceAttr}
}
