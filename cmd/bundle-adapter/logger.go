package main

import (
	"io"
	"log/slog"

	"github.com/bundle-adapter/bundle-adapter/config"
	"github.com/bundle-adapter/bundle-adapter/internal/logfmt"
)

// newLogger builds the slog logger the adapter config asks for, with
// logfmt's options (durations as text: "8s").
func newLogger(c config.LogConfig, stdout, stderr io.Writer) *slog.Logger {
	w := stdout
	if c.Output == "stderr" {
		w = stderr
	}
	var level slog.Level
	_ = level.UnmarshalText([]byte(c.Level))
	if c.Format == "text" {
		return slog.New(slog.NewTextHandler(w, logfmt.Options(level)))
	}
	return slog.New(slog.NewJSONHandler(w, logfmt.Options(level)))
}
