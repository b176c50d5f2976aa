package stacktest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// AdapterOptions say how to start `bundle-adapter serve`.
type AdapterOptions struct {
	// Bin is the bundle-adapter binary; required.
	Bin string
	// Files are the three config files; required.
	Files Files
	// Args are more serve flags, after the harness's own (e.g. --shadow).
	Args []string
	// Argv, when set, is the whole command line after Bin instead of the
	// harness's own flags and Args: the process then serves no health
	// address the harness knows (Ready and Metrics do not apply), e.g.
	// another adapter started with only its config files.
	Argv []string
	// Env is added to the harness's own environment (KEY=value).
	Env []string
	// LogPath receives the adapter's stdout and stderr, truncated first;
	// default Files.Dir/adapter.log.
	LogPath string
	// OwnProcessGroup starts the adapter in a process group of its own, so a
	// terminal's SIGINT reaches only the harness, which then stops the
	// adapter itself.
	OwnProcessGroup bool
}

// Adapter is one running `bundle-adapter serve --listen <loopback port>`.
// Its methods may be called from any goroutine.
type Adapter struct {
	cmd     *exec.Cmd
	listen  string
	logPath string
	done    chan struct{} // closed once the process exited
	err     error         // what Wait returned, once done is closed
}

// StartAdapter starts serve on a free loopback port and returns at once; see
// WaitReady. The log file is closed when the process exits.
func StartAdapter(o AdapterOptions) (*Adapter, error) {
	listen, err := FreeAddr()
	if err != nil {
		return nil, err
	}
	a := &Adapter{listen: listen, logPath: o.LogPath, done: make(chan struct{})}
	if a.logPath == "" {
		a.logPath = filepath.Join(o.Files.Dir, "adapter.log")
	}
	logFile, err := os.Create(a.logPath)
	if err != nil {
		return nil, err
	}
	a.cmd = exec.Command(o.Bin, "serve", "--config", o.Files.Adapter, "--task-config", o.Files.Task,
		"--broker-config", o.Files.Broker, "--listen", listen, "--metrics-listen", "")
	a.cmd.Args = append(a.cmd.Args, o.Args...)
	if o.Argv != nil {
		a.listen = ""
		a.cmd = exec.Command(o.Bin, o.Argv...)
	}
	a.cmd.Env = append(os.Environ(), o.Env...)
	a.cmd.Stdout, a.cmd.Stderr = logFile, logFile
	if o.OwnProcessGroup {
		a.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	}
	if err := a.cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("start %s: %w", o.Bin, err)
	}
	go func() {
		a.err = a.cmd.Wait()
		logFile.Close()
		close(a.done)
	}()
	return a, nil
}

// Listen is the host:port of the adapter's health and metrics server.
func (a *Adapter) Listen() string { return a.listen }

// MetricsURL is the adapter's /metrics.
func (a *Adapter) MetricsURL() string { return "http://" + a.listen + "/metrics" }

// PID is the adapter's process id.
func (a *Adapter) PID() int { return a.cmd.Process.Pid }

// LogPath is the file holding the adapter's output.
func (a *Adapter) LogPath() string { return a.logPath }

// Done is closed once the process has exited; Err then says how.
func (a *Adapter) Done() <-chan struct{} { return a.done }

// Err is what waiting for the process returned (nil for exit status 0);
// meaningful only once Done is closed.
func (a *Adapter) Err() error { return a.err }

// Ready probes /readyz once: nil when it answered 200, else why not
// (the process exited, no answer, or the status and body).
func (a *Adapter) Ready() error {
	select {
	case <-a.done:
		return fmt.Errorf("the adapter exited: %v", a.err)
	default:
	}
	return probe("http://" + a.listen + "/readyz")
}

// WaitReady polls /readyz every 200ms until it answers 200. It fails when
// the process exits, when timeout passes (naming the last answer), or with
// ctx's error when ctx is done.
func (a *Adapter) WaitReady(ctx context.Context, timeout time.Duration) error {
	return WaitReady(ctx, "http://"+a.listen+"/readyz", timeout, a)
}

// Exiter is a process whose end WaitReady watches: Done is closed when it
// exited and Err then says how.
type Exiter interface {
	Done() <-chan struct{}
	Err() error
}

// WaitReady polls url every 200ms until it answers 200. It fails when p
// (optional) exits, when timeout passes (naming the last answer), or with
// ctx's error when ctx is done.
func WaitReady(ctx context.Context, url string, timeout time.Duration, p Exiter) error {
	deadline := time.Now().Add(timeout)
	var exited <-chan struct{}
	if p != nil {
		exited = p.Done()
	}
	for {
		last := probe(url)
		if last == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not ready within %v: %s: %v", timeout, url, last)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-exited:
			return fmt.Errorf("the adapter exited: %v", p.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// probe GETs url: nil on 200, else the error or "<code> <body>".
func probe(url string) error {
	c := &http.Client{Timeout: 3 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("answered %d %s", resp.StatusCode, strings.Join(strings.Fields(string(body)), " "))
	}
	return nil
}

// ErrKilled is wrapped by Stop's error when the adapter ignored SIGTERM.
var ErrKilled = errors.New("killed")

// Stop sends SIGTERM and waits for the adapter to finish its in-flight
// events; after timeout it kills it and returns an error wrapping
// ErrKilled. Otherwise it returns how the process ended (nil for exit
// status 0; an *exec.ExitError else) and how long the stop took. Stopping an
// adapter that already exited returns at once, with its exit error.
func (a *Adapter) Stop(timeout time.Duration) (time.Duration, error) {
	start := time.Now()
	select {
	case <-a.done:
		return 0, a.err
	default:
	}
	_ = a.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-a.done:
		return time.Since(start), a.err
	case <-time.After(timeout):
		_ = a.cmd.Process.Kill()
		<-a.done
		return time.Since(start), fmt.Errorf("did not stop within %v: %w", timeout, ErrKilled)
	}
}

// Kill ends the adapter at once (SIGKILL), settling nothing, and waits for
// the process to be gone.
func (a *Adapter) Kill() {
	_ = a.cmd.Process.Kill()
	<-a.done
}

// Metrics scrapes the adapter's /metrics.
func (a *Adapter) Metrics() (Metrics, error) { return Scrape(a.MetricsURL()) }

// Tail returns the last n lines of the adapter's log ("" when unreadable).
func (a *Adapter) Tail(n int) string {
	b, err := os.ReadFile(a.logPath)
	if err != nil {
		return ""
	}
	return LastLines(string(b), n)
}

// LastLines is the last n lines of s.
func LastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
