package main

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/bundle-adapter/bundle-adapter/health"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/view"
)

// maxViewFillWait bounds how long serve waits for the bundle view's first
// List before it consumes events (at most the view's max_age too).
const maxViewFillWait = 60 * time.Second

// viewFillWait is how long serve waits for the first List: events that
// raced it would each read Maestro, which the List makes unneeded.
func viewFillWait(maxAge time.Duration) time.Duration {
	if maxAge <= 0 {
		maxAge = view.DefaultMaxAge
	}
	return min(maxViewFillWait, maxAge)
}

// runRefresher runs r until the returned stop is called; stop returns once
// r has returned (before the Maestro pool it lists through is closed). A
// nil r runs nothing.
func runRefresher(ctx context.Context, r *view.Refresher) (stop func()) {
	if r == nil {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { r.Run(ctx); close(done) }()
	return func() { cancel(); <-done }
}

// waitViewFilled waits until filled is closed (the view's first List after
// the first subscription completed), for at most timeout; past it, it
// logs a warning and returns, and events are consumed with the view still
// filling (each then reads Maestro). It returns early when ctx ends.
func waitViewFilled(ctx context.Context, filled <-chan struct{}, timeout time.Duration, log *slog.Logger) {
	t := time.NewTimer(timeout)
	defer t.Stop()
	start := time.Now()
	select {
	case <-filled:
		log.Info("bundle view filled; consuming events", "waited", time.Since(start).Round(time.Millisecond).String())
	case <-t.C:
		log.Warn("bundle view not filled in time (no subscription or no successful list); consuming anyway: events read Maestro until it is",
			"waited", timeout.String())
	case <-ctx.Done():
	}
}

// gateCheck is the readiness check "bundle_view": not ready until open is
// closed (serve closes it when it starts consuming).
func gateCheck(open <-chan struct{}) health.Check {
	return func(context.Context) error {
		select {
		case <-open:
			return nil
		default:
			return errors.New("waiting for the bundle view's first list")
		}
	}
}
