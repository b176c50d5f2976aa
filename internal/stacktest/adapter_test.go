package stacktest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The test binary doubles as a fake `bundle-adapter serve` when
// STACKTEST_FAKE_ADAPTER is set: it serves /readyz and /metrics on --listen
// and exits 0 on SIGTERM. FAKE_EXIT=<code> exits at once;
// FAKE_IGNORE_TERM=1 ignores SIGTERM.
func TestMain(m *testing.M) {
	if os.Getenv("STACKTEST_FAKE_ADAPTER") == "1" {
		fakeServe(os.Args[1:])
		return
	}
	os.Exit(m.Run())
}

func fakeServe(args []string) {
	fmt.Println("fake adapter:", strings.Join(args, " "))
	if code := os.Getenv("FAKE_EXIT"); code != "" {
		var n int
		fmt.Sscan(code, &n)
		os.Exit(n)
	}
	listen := ""
	for i, a := range args {
		if a == "--listen" && i+1 < len(args) {
			listen = args[i+1]
		}
	}
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM)
	mux := http.NewServeMux()
	mux.HandleFunc("/readyz", func(http.ResponseWriter, *http.Request) {})
	mux.HandleFunc("/metrics", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `# HELP bundle_adapter_maestro_requests_total x
bundle_adapter_maestro_requests_total{code="ok",verb="get_bundles"} 4
bundle_adapter_maestro_requests_total{code="ok",verb="create"} 2
`)
	})
	go func() { _ = http.ListenAndServe(listen, mux) }()
	for range term {
		if os.Getenv("FAKE_IGNORE_TERM") != "1" {
			fmt.Println("fake adapter: stopping")
			os.Exit(0)
		}
	}
}

func startFake(t *testing.T, env ...string) *Adapter {
	t.Helper()
	dir := t.TempDir()
	a, err := StartAdapter(AdapterOptions{Bin: os.Args[0], Files: FilesIn(dir),
		Env: append([]string{"STACKTEST_FAKE_ADAPTER=1"}, env...)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Kill)
	return a
}

// StartAdapter runs serve with the three files and --listen, waits for
// /readyz, scrapes /metrics, and stops it with SIGTERM: exit status 0.
func TestAdapterLifecycle(t *testing.T) {
	a := startFake(t)
	if err := a.WaitReady(context.Background(), 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if err := a.Ready(); err != nil {
		t.Errorf("Ready = %v", err)
	}
	m, err := a.Metrics()
	if err != nil {
		t.Fatal(err)
	}
	if m.MaestroReads() != 4 || m.MaestroWrites() != 2 {
		t.Errorf("reads %v writes %v", m.MaestroReads(), m.MaestroWrites())
	}
	if took, err := a.Stop(5 * time.Second); err != nil || took > 5*time.Second {
		t.Errorf("Stop = %v after %v", err, took)
	}
	tail := a.Tail(5)
	for _, want := range []string{"serve --config", "--task-config", "--broker-config", "--listen " + a.Listen(), "fake adapter: stopping"} {
		if !strings.Contains(tail, want) {
			t.Errorf("log %q lacks %q", tail, want)
		}
	}
	if err := a.Ready(); err == nil || !strings.Contains(err.Error(), "exited") {
		t.Errorf("Ready after exit = %v", err)
	}
	if _, err := a.Stop(time.Second); err != nil {
		t.Errorf("second Stop = %v, want the exit status (nil)", err)
	}
}

// An adapter that ignores SIGTERM is killed after the timeout.
func TestStopKillsAfterTimeout(t *testing.T) {
	a := startFake(t, "FAKE_IGNORE_TERM=1")
	if err := a.WaitReady(context.Background(), 10*time.Second); err != nil {
		t.Fatal(err)
	}
	_, err := a.Stop(300 * time.Millisecond)
	if !errors.Is(err, ErrKilled) {
		t.Errorf("Stop = %v, want ErrKilled", err)
	}
}

// WaitReady fails as soon as the process exits, with its exit status.
func TestWaitReadyNoticesExit(t *testing.T) {
	a := startFake(t, "FAKE_EXIT=3")
	err := a.WaitReady(context.Background(), 30*time.Second)
	if err == nil || !strings.Contains(err.Error(), "exited") {
		t.Fatalf("WaitReady = %v, want the exit", err)
	}
	var exit *exec.ExitError
	if !errors.As(a.Err(), &exit) || exit.ExitCode() != 3 {
		t.Errorf("Err = %v, want exit status 3", a.Err())
	}
}

// WaitReady names the last answer on timeout and stops when ctx is done.
func TestWaitReadyTimeoutAndCancel(t *testing.T) {
	srv := http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "maestro: not answering", http.StatusServiceUnavailable)
	})}
	addr, err := FreeAddr()
	if err != nil {
		t.Fatal(err)
	}
	srv.Addr = addr
	go func() { _ = srv.ListenAndServe() }()
	t.Cleanup(func() { _ = srv.Close() })
	url := "http://" + addr + "/readyz"
	err = WaitReady(context.Background(), url, 500*time.Millisecond, nil)
	if err == nil || !strings.Contains(err.Error(), "503 maestro: not answering") {
		t.Errorf("WaitReady = %v, want the last answer", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := WaitReady(ctx, url, time.Minute, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("WaitReady on a done context = %v", err)
	}
}

func TestFreePorts(t *testing.T) {
	ports, err := FreePorts(5)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, p := range ports {
		if seen[p] {
			t.Errorf("port %s twice in %v", p, ports)
		}
		seen[p] = true
	}
}
