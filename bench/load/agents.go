package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/bundle-adapter/bundle-adapter/internal/logfmt"
)

// agentsCommand is the harness's subcommand that runs the simulated agents
// in a process of their own (`bench-load agents`): their stores (the
// process holds about 10 KB per bundle) then live in another heap than the
// one of the recording API that timestamps statuses, so neither collector
// pauses the other, and their CPU is measured apart from the harness's.
const agentsCommand = "agents"

// agentsReady is the line the agents process prints on stdout once every
// agent is connected.
const agentsReady = "agents ready"

// agentsCollect, written to the agents process's stdin, makes it collect
// its heap (runtime.GC); it answers agentsCollected on stdout when done.
const (
	agentsCollect   = "collect"
	agentsCollected = "collected"
)

// agentsApplied, written to the agents process's stdin, makes it answer
// "applied N": the bundles its agents reported applied so far.
const agentsApplied = "applied"

// parseApplied reads an "applied N" answer.
func parseApplied(line string) (int64, bool) {
	rest, ok := strings.CutPrefix(line, agentsApplied+" ")
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(rest, 10, 64)
	return n, err == nil
}

// agentsProcess is the simulated agents running as a child process.
type agentsProcess struct {
	cmd       *exec.Cmd
	stdin     io.WriteCloser
	done      chan error
	collected chan struct{} // an agentsCollected line arrived
	applied   chan int64    // an "applied N" line arrived
}

// startAgentsProcess runs this binary's agents subcommand for consumers and
// waits (at most a minute) until every agent is connected. The child exits
// when its stdin closes, so it never outlives the harness.
// applyRate, when positive, is each agent's agentsim.Options.ApplyRate.
func startAgentsProcess(ctx context.Context, broker string, consumers []string, applyRate float64, logPath string) (*agentsProcess, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("agents process: %w", err)
	}
	cmd := exec.Command(exe, agentsCommand, "--maestro-broker", broker, "--consumers", strings.Join(consumers, ","),
		"--apply-rate", strconv.FormatFloat(applyRate, 'f', -1, 64))
	cmd.Env = agentsEnv(os.Environ())
	return startChild(ctx, cmd, logPath, time.Minute)
}

// agentsMemoryLimit is the agents process's soft memory limit: above the
// 1 GB they hold at 100,000 bundles, far below this machine's 24 GB.
const agentsMemoryLimit = "4GiB"

// agentsEnv is environ with the collector of the agents process turned off
// below agentsMemoryLimit (GOGC=off, GOMEMLIMIT). The agents sit idle
// through the unchanged and paced phases, yet Go collects at least every 2
// minutes, and at 50,000 bundles one such collection is about a second of
// CPU taken from the adapter in the middle of a paced phase; with GOGC=off
// there is no such periodic collection. A GOGC or GOMEMLIMIT already in
// environ is kept, so a run can still choose its own.
func agentsEnv(environ []string) []string {
	env := append([]string(nil), environ...)
	for _, kv := range []string{"GOGC=off", "GOMEMLIMIT=" + agentsMemoryLimit} {
		name, _, _ := strings.Cut(kv, "=")
		if !hasEnv(environ, name) {
			env = append(env, kv)
		}
	}
	return env
}

// hasEnv reports whether environ sets name.
func hasEnv(environ []string, name string) bool {
	for _, kv := range environ {
		if strings.HasPrefix(kv, name+"=") {
			return true
		}
	}
	return false
}

// startChild starts cmd with its stderr in logPath and waits until it
// prints agentsReady on stdout. An error names logPath: the child exited
// first, or was not ready within timeout (it is then stopped).
func startChild(ctx context.Context, cmd *exec.Cmd, logPath string, timeout time.Duration) (*agentsProcess, error) {
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, fmt.Errorf("agents process log: %w", err)
	}
	defer logFile.Close() // the child holds its own descriptor
	cmd.Stderr = logFile
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("agents process: %w", err)
	}
	p := &agentsProcess{cmd: cmd, stdin: stdin, done: make(chan error, 1), collected: make(chan struct{}, 1), applied: make(chan int64, 1)}
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		ok := false
		for sc.Scan() {
			switch {
			case sc.Text() == agentsReady && !ok:
				ok = true
				ready <- true
			case sc.Text() == agentsCollected:
				select {
				case p.collected <- struct{}{}:
				default:
				}
			default:
				if n, isApplied := parseApplied(sc.Text()); isApplied {
					select {
					case p.applied <- n:
					default:
					}
				}
			}
		}
		if !ok {
			ready <- false
		}
		p.done <- cmd.Wait()
	}()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case ok := <-ready:
		if ok {
			return p, nil
		}
		err = fmt.Errorf("agents process exited before its agents connected (log %s)", logPath)
	case <-timer.C:
		err = fmt.Errorf("agents process: not ready within %s (log %s)", timeout, logPath)
	case <-ctx.Done():
		err = ctx.Err()
	}
	p.stop()
	return nil, err
}

func (p *agentsProcess) pid() int { return p.cmd.Process.Pid }

// collect makes the child collect its heap now and waits until it has (at
// most timeout). With GOGC=off its collector runs only at the memory
// limit: after the create phase's garbage that can come at any moment,
// about a second of CPU at 100,000 bundles; collected before the measured
// phases, the heap is what the agents hold and the limit is gigabytes
// away, so no collection lands in them.
func (p *agentsProcess) collect(timeout time.Duration) error {
	if _, err := io.WriteString(p.stdin, agentsCollect+"\n"); err != nil {
		return fmt.Errorf("agents process: collect: %w", err)
	}
	select {
	case <-p.collected:
		return nil
	case <-time.After(timeout):
		return fmt.Errorf("agents process: no %q within %s", agentsCollected, timeout)
	}
}

// appliedCount asks the child how many bundles its agents reported applied
// so far, and waits (at most timeout) for the answer.
func (p *agentsProcess) appliedCount(timeout time.Duration) (int64, error) {
	if _, err := io.WriteString(p.stdin, agentsApplied+"\n"); err != nil {
		return 0, fmt.Errorf("agents process: applied: %w", err)
	}
	select {
	case n := <-p.applied:
		return n, nil
	case <-time.After(timeout):
		return 0, fmt.Errorf("agents process: no %q answer within %s", agentsApplied, timeout)
	}
}

// stop closes the child's stdin (it stops its agents and exits) and kills
// it after 10 s.
func (p *agentsProcess) stop() {
	_ = p.stdin.Close()
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// serveStdin answers the harness's lines on in until it closes: each
// agentsCollect collects the heap and writes agentsCollected to out; each
// agentsApplied writes "applied N", N from applied (0 when nil); other
// lines are ignored.
func serveStdin(in io.Reader, out io.Writer, applied func() int64) error {
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		switch sc.Text() {
		case agentsCollect:
			runtime.GC()
			fmt.Fprintln(out, agentsCollected)
		case agentsApplied:
			n := int64(0)
			if applied != nil {
				n = applied()
			}
			fmt.Fprintf(out, "%s %d\n", agentsApplied, n)
		}
	}
	return sc.Err()
}

// runAgentsCommand is `bench-load agents`: it starts one simulated agent
// per consumer, prints agentsReady, and stops them when stdin closes or on
// SIGINT/SIGTERM. It returns the process's exit code.
func runAgentsCommand(args []string) int {
	fs := flag.NewFlagSet("bench-load agents", flag.ContinueOnError)
	broker := fs.String("maestro-broker", "127.0.0.1:18191", "Maestro agent gRPC broker address")
	list := fs.String("consumers", "", "comma-separated consumers, one agent each")
	rate := fs.Float64("apply-rate", 0, "bundles per second each agent reports applied at most (agentsim ApplyRate); 0: as fast as they come")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, logfmt.Options(slog.LevelError)))
	if *list == "" {
		log.Error("agents: --consumers is required")
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	agents, err := startAgents(ctx, *broker, strings.Split(*list, ","), *rate, log)
	if err != nil {
		log.Error("agents: start", "error", err)
		return 1
	}
	defer stopAgents(agents)
	fmt.Println(agentsReady)
	eof := make(chan error, 1)
	go func() { eof <- serveStdin(os.Stdin, os.Stdout, func() int64 { return appliedBy(agents) }) }()
	select {
	case <-ctx.Done():
	case err := <-eof:
		if err != nil && !errors.Is(err, os.ErrClosed) {
			log.Error("agents: stdin", "error", err)
		}
	}
	return 0
}
