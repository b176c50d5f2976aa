package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// childEnv makes this test binary act as a stand-in for the agents
// subcommand (TestMain): "ready" prints agentsReady and waits for stdin to
// close, "exit" fails at once, "silent" waits for stdin without a word,
// "serve" is ready and answers stdin as the agents command does.
const childEnv = "BENCH_LOAD_TEST_CHILD"

func TestMain(m *testing.M) {
	switch os.Getenv(childEnv) {
	case "":
		os.Exit(m.Run())
	case "ready":
		fmt.Println(agentsReady)
		_, _ = os.Stdin.Read(make([]byte, 1)) // EOF when the parent closes it
		os.Exit(0)
	case "exit":
		fmt.Fprintln(os.Stderr, "cannot connect")
		os.Exit(1)
	case "silent":
		_, _ = os.Stdin.Read(make([]byte, 1))
		os.Exit(0)
	case "serve": // the agents command's stdin protocol, without agents
		fmt.Println(agentsReady)
		_ = serveStdin(os.Stdin, os.Stdout, func() int64 { return 3 })
		os.Exit(0)
	}
}

func child(t *testing.T, mode string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), childEnv+"="+mode)
	return cmd
}

// The harness waits for the child's ready line, reports a child that dies
// or stays silent with its log, and stop (closing stdin) ends the child:
// the agents never outlive the harness.
func TestStartChild(t *testing.T) {
	tests := []struct {
		mode    string
		timeout time.Duration
		wantErr string
	}{
		{"ready", time.Minute, ""},
		{"exit", time.Minute, "exited before its agents connected"},
		{"silent", 2 * time.Second, "not ready within"},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			log := filepath.Join(t.TempDir(), "agents.log")
			p, err := startChild(context.Background(), child(t, tt.mode), log, tt.timeout)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), log) {
					t.Fatalf("err %v: want %q naming %s", err, tt.wantErr, log)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			pid := p.pid()
			p.stop()
			if err := syscall.Kill(pid, 0); err == nil {
				t.Errorf("child %d still running after stop", pid)
			}
			if !p.cmd.ProcessState.Exited() {
				t.Errorf("child did not exit by itself: %v", p.cmd.ProcessState)
			}
		})
	}
}

// The agents command collects its heap on each collect line and says so;
// other lines are ignored.
func TestServeStdin(t *testing.T) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	var out strings.Builder
	if err := serveStdin(strings.NewReader("hello\ncollect\ncollect\n"), &out, nil); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if got := out.String(); got != "collected\ncollected\n" {
		t.Errorf("answered %q, want two collected lines", got)
	}
	if n := after.NumGC - before.NumGC; n < 2 {
		t.Errorf("%d collections, want at least 2", n)
	}
}

// The agents command answers an applied line with the bundles its agents
// reported applied so far.
func TestServeStdinApplied(t *testing.T) {
	var out strings.Builder
	n := int64(0)
	count := func() int64 { n += 7; return n }
	if err := serveStdin(strings.NewReader("applied\napplied\n"), &out, count); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "applied 7\napplied 14\n" {
		t.Errorf("answered %q, want applied 7 then applied 14", got)
	}
}

// parseApplied reads the agents process's answer.
func TestParseApplied(t *testing.T) {
	for _, c := range []struct {
		line string
		n    int64
		ok   bool
	}{{"applied 12", 12, true}, {"applied x", 0, false}, {"collected", 0, false}, {"applied", 0, false}} {
		n, ok := parseApplied(c.line)
		if n != c.n || ok != c.ok {
			t.Errorf("parseApplied(%q) = %d, %t, want %d, %t", c.line, n, ok, c.n, c.ok)
		}
	}
}

// collect waits for the child's answer, and names the line it missed from
// a child that does not answer.
func TestCollectChild(t *testing.T) {
	log := filepath.Join(t.TempDir(), "agents.log")
	p, err := startChild(context.Background(), child(t, "serve"), log, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := p.collect(time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	p.stop()
	mute, err := startChild(context.Background(), child(t, "ready"), log, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	defer mute.stop()
	if err := mute.collect(2 * time.Second); err == nil || !strings.Contains(err.Error(), agentsCollected) {
		t.Errorf("collect from a child that does not answer: %v", err)
	}
}

// appliedCount reads the child's answer.
func TestAppliedChild(t *testing.T) {
	p, err := startChild(context.Background(), child(t, "serve"), filepath.Join(t.TempDir(), "agents.log"), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	defer p.stop()
	if n, err := p.appliedCount(time.Minute); n != 3 || err != nil {
		t.Errorf("appliedCount() = %d, %v, want 3", n, err)
	}
}

func TestRunAgentsCommandNeedsConsumers(t *testing.T) {
	if code := runAgentsCommand(nil); code != 2 {
		t.Errorf("exit code %d without --consumers, want 2", code)
	}
}

func TestAgentsEnv(t *testing.T) {
	tests := []struct {
		name    string
		environ []string
		want    []string
	}{
		{"adds both", []string{"HOME=/root"}, []string{"HOME=/root", "GOGC=off", "GOMEMLIMIT=4GiB"}},
		{"keeps a chosen GOGC", []string{"GOGC=100"}, []string{"GOGC=100", "GOMEMLIMIT=4GiB"}},
		{"keeps a chosen limit", []string{"GOMEMLIMIT=1GiB"}, []string{"GOMEMLIMIT=1GiB", "GOGC=off"}},
		{"a prefix is not the name", []string{"GOGCX=1"}, []string{"GOGCX=1", "GOGC=off", "GOMEMLIMIT=4GiB"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := agentsEnv(tt.environ)
			if !slices.Equal(got, tt.want) {
				t.Errorf("agentsEnv(%q) = %q, want %q", tt.environ, got, tt.want)
			}
		})
	}
}
