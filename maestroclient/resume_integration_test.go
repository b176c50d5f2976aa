package maestroclient_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/maestroclient"
)

// resumeWithin is how soon after Maestro answers its health check again
// every source client of a Pool must write (issue 48).
const resumeWithin = 5 * time.Second

// TestWritesResumeSoonAfterRestart restarts the real server under a Pool
// of the default size, as the soak's Maestro restart fault does, and
// measures from the moment the restarted server is healthy to the first
// successful write through each of the Pool's source clients: every one
// must write within resumeWithin. Meanwhile the Pool's readiness (Ping)
// must not say ready while a client's write fails. Disruptive: set
// MAESTRO_TEST_RESTART=1.
func TestWritesResumeSoonAfterRestart(t *testing.T) {
	s := requireServer(t)
	if os.Getenv(envRestart) != "1" {
		t.Skipf("disruptive: set %s=1 to stop and restart the server through hack/maestro.sh", envRestart)
	}
	p := restartPool(t, s)
	consumer := register(t, s, "resume")
	w := &poolWriter{t: t, p: p, consumer: consumer}
	for i := range p.Size() {
		if err := w.create(i); err != nil {
			t.Fatalf("client %d before the restart: %v", i, err)
		}
	}

	maestroScript(t, "stop")
	t.Cleanup(func() { maestroScript(t, "start") }) // no-op when running
	for i := range p.Size() {
		if err := w.create(i); err == nil {
			t.Fatalf("client %d wrote while the server was stopped", i)
		}
	}
	maestroScript(t, "start")
	healthy := time.Now()

	resumed := make([]time.Duration, p.Size())
	var readyWhileFailing []string
	for pending := p.Size(); pending > 0; {
		if time.Since(healthy) > 3*time.Minute {
			t.Fatalf("writes resumed after the restart: %v (0: not within 3m)", resumed)
		}
		ready := p.Ping(t.Context()) == nil
		for i := range resumed {
			if resumed[i] > 0 {
				continue
			}
			err := w.create(i)
			if err == nil {
				resumed[i] = time.Since(healthy)
				pending--
				continue
			}
			if ready {
				readyWhileFailing = append(readyWhileFailing,
					fmt.Sprintf("%s: client %d: %v", time.Since(healthy).Round(time.Millisecond), i, err))
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("writes resumed after Maestro was healthy, per source client: %v", resumed)
	for i, d := range resumed {
		if d > resumeWithin {
			t.Errorf("client %d wrote again %s after Maestro was healthy; want within %s", i, d.Round(time.Millisecond), resumeWithin)
		}
	}
	if len(readyWhileFailing) > 0 {
		t.Errorf("readiness said ready while writes failed (%d times), first: %s", len(readyWhileFailing), readyWhileFailing[0])
	}
}

// poolWriter creates fresh bundles through a chosen Client of a Pool.
type poolWriter struct {
	t        *testing.T
	p        *maestroclient.Pool
	consumer string
}

// create publishes a new bundle whose name the Pool routes to client i.
func (w *poolWriter) create(i int) error {
	for {
		name := unique("r")
		if maestroclient.PoolClientIndex(w.p, w.consumer, name) != i {
			continue
		}
		_, err := w.p.Create(w.t.Context(), w.consumer, bundle(name, "v1"), adapter.ReadAbsent)
		return err
	}
}

// restartPool is a Pool of the default size whose calls fail fast (one
// try, 2 s) and whose writes no budget delays, for the restart tests.
func restartPool(t *testing.T, s server) *maestroclient.Pool {
	t.Helper()
	p, err := maestroclient.NewPool(context.Background(), maestroclient.Options{
		GRPCAddress: s.grpc, GRPC: s.grpcTLS,
		HTTPURL: s.rest, HTTP: maestroclient.TLSOptions{Insecure: strings.HasPrefix(s.rest, "http:")},
		SourceID: "maestroclient-test", Timeout: 2 * time.Second, Logger: testLogger(t),
		Retry:          maestroclient.RetryOptions{Attempts: 1},
		ConsumerWrites: maestroclient.WriteBudget{Mode: maestroclient.BudgetFixed, PerSecond: 1000, Burst: 1000},
	})
	if err != nil {
		t.Fatalf("NewPool: %v", err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p
}
