package main

import (
	"io"
	"log/slog"

	"github.com/bundle-adapter/bundle-adapter/config"
)

// newLogger builds the slog logger the adapter config asks for.
func newLogger(c config.LogConfig, stdout, stderr io.Writer) *slog.Logger {
	w := stdout
	if c.Output == "stderr" {
		w = stderr
	}
	var level slog.Level
	_ = level.UnmarshalText([]byte(c.Level))
	opts := &slog.HandlerOptions{Level: level}
	var h slog.Handler = slog.NewJSONHandler(w, opts)
	if c.Format == "text" {
		h = slog.NewTextHandler(w, opts)
	}
	return slog.New(h)
}
