package maestroclient_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bundle-adapter/bundle-adapter/maestroclient"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/agentsim"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/contract"
)

func newPool(t *testing.T, s server) *maestroclient.Pool {
	t.Helper()
	p, err := maestroclient.NewPool(context.Background(), maestroclient.Options{
		GRPCAddress: s.grpc, GRPC: s.grpcTLS,
		HTTPURL: s.rest, HTTP: maestroclient.TLSOptions{Insecure: strings.HasPrefix(s.rest, "http:")},
		SourceID: "maestroclient-test", Timeout: 10 * time.Second, Logger: testLogger(t),
	})
	if err != nil {
		t.Fatalf("NewPool: %v", err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p
}

// The shared contract holds through a pool as through one client.
func TestContractAgainstRealMaestroThroughPool(t *testing.T) {
	s := requireServer(t)
	consumer := register(t, s, "poolcontract")
	agent := startAgent(t, s, consumer, func(o *agentsim.Options) { o.Delete = agentsim.DeleteOnRelease })
	contract.Run(t, &realHarness{t: t, client: newPool(t, s), agent: agent, consumer: consumer})
}

// TestPoolConcurrentConsumers drives a pool for 8 consumers at once (run it
// with -race): every bundle lands at its own consumer, whichever client of
// the pool carries it.
func TestPoolConcurrentConsumers(t *testing.T) {
	s := requireServer(t)
	p := newPool(t, s)
	const consumers, bundles = 8, 5
	var wg sync.WaitGroup
	errs := make(chan error, consumers*bundles)
	for i := range consumers {
		consumer := register(t, s, fmt.Sprintf("poolconc%d", i))
		wg.Go(func() {
			for j := range bundles {
				if err := roundTrip(t, p, consumer, fmt.Sprintf("b%d", j)); err != nil {
					errs <- fmt.Errorf("%s: %w", consumer, err)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
