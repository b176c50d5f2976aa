package main

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"time"

	"github.com/bundle-adapter/bundle-adapter/internal/stacktest"
)

// adapterUnderTest is the adapter the harness drives: its /metrics and the
// process whose memory and CPU are measured.
type adapterUnderTest interface {
	metricsURL() string
	pid() int
	stop() error
}

// binaryAdapter is `bundle-adapter serve` as a child process.
type binaryAdapter struct{ *stacktest.Adapter }

// startBinary starts bin serve on the run's config files, its output in
// logPath (default f.Dir/adapter.log), and waits until it is ready.
func startBinary(ctx context.Context, bin string, f stacktest.Files, logPath string) (*binaryAdapter, error) {
	ad, err := stacktest.StartAdapter(stacktest.AdapterOptions{Bin: bin, Files: f, LogPath: logPath})
	if err != nil {
		return nil, err
	}
	a := &binaryAdapter{ad}
	if err := ad.WaitReady(ctx, 60*time.Second); err != nil {
		_ = a.stop()
		return nil, fmt.Errorf("adapter not ready (log %s): %w", ad.LogPath(), err)
	}
	return a, nil
}

func (a *binaryAdapter) metricsURL() string { return a.MetricsURL() }
func (a *binaryAdapter) pid() int           { return a.PID() }

// stop sends SIGTERM and waits for a graceful exit (SIGKILL after 30s).
func (a *binaryAdapter) stop() error {
	_, err := a.Stop(30 * time.Second)
	var exit *exec.ExitError
	switch {
	case errors.Is(err, stacktest.ErrKilled):
		return fmt.Errorf("adapter ignored SIGTERM for 30s (log %s)", a.LogPath())
	case errors.As(err, &exit):
		return fmt.Errorf("adapter exited: %w (log %s)", err, a.LogPath())
	}
	return nil
}
