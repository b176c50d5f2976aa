package maestroclient_test

import (
	"errors"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/maestroclient"
)

// TestServerRestart stops the server through hack/maestro.sh, checks that
// calls fail with ErrUnavailable within the timeout, starts it again and
// waits for the same client and agent to recover. It is disruptive for
// other tests using the server: set MAESTRO_TEST_RESTART=1 to run it.
func TestServerRestart(t *testing.T) {
	s := requireServer(t)
	if os.Getenv(envRestart) != "1" {
		t.Skipf("disruptive: set %s=1 to stop and restart the server through hack/maestro.sh", envRestart)
	}
	const timeout = 3 * time.Second
	c := newClient(t, s, func(o *maestroclient.Options) { o.Timeout = timeout })
	consumer := register(t, s, "restart")
	startAgent(t, s, consumer, nil)
	before := unique("b")
	if _, err := c.Create(t.Context(), consumer, bundle(before, "v1"), adapter.Unread); err != nil {
		t.Fatalf("Create: %v", err)
	}
	waitApplied(t, c, consumer, before, 1)

	maestroScript(t, "stop")
	t.Cleanup(func() { maestroScript(t, "start") }) // no-op when running
	after := unique("b")
	for name, call := range map[string]func() error{
		"get": func() error { _, err := c.Get(t.Context(), consumer, before); return err },
		"create": func() error {
			_, err := c.Create(t.Context(), consumer, bundle(after, "v1"), adapter.Unread)
			return err
		},
	} {
		start := time.Now()
		if err := call(); !errors.Is(err, adapter.ErrUnavailable) || time.Since(start) > timeout+time.Second {
			t.Errorf("%s while stopped: got %v after %s, want ErrUnavailable within %s", name, err, time.Since(start), timeout)
		}
	}

	maestroScript(t, "start")
	restarted := time.Now()
	eventually(t, 2*time.Minute, "create after restart", func() error {
		_, err := c.Create(t.Context(), consumer, bundle(after, "v1"), adapter.Unread)
		return err
	})
	t.Logf("source client recovered %s after the restart", time.Since(restarted).Round(time.Millisecond))
	waitAppliedWithin(t, c, consumer, after, 2*time.Minute)
	t.Logf("agent recovered %s after the restart", time.Since(restarted).Round(time.Millisecond))
}

// maestroScript runs hack/maestro.sh with the test's environment.
func maestroScript(t *testing.T, args ...string) {
	t.Helper()
	script := os.Getenv("MAESTRO_SCRIPT")
	if script == "" {
		script = "../hack/maestro.sh"
	}
	out, err := exec.Command(script, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", script, args, err, out)
	}
}
