package memmaestro_test

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/contract"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/memmaestro"
)

// harness runs the shared Maestro contract against a Store whose agent holds
// every deletion until the scenario confirms it.
type harness struct {
	store *memmaestro.Store
	seq   atomic.Int64
}

func (h *harness) Maestro() adapter.Maestro { return h.store }
func (h *harness) Registered() string       { return "cluster-a" }
func (h *harness) Unregistered() string     { return "cluster-x" }
func (h *harness) Timeout() time.Duration   { return 2 * time.Second }

func (h *harness) Unique(prefix string) string {
	return fmt.Sprintf("%s-%d", prefix, h.seq.Add(1))
}

func (h *harness) Confirm(t *testing.T, consumer, name string) {
	t.Helper()
	if err := h.store.Confirm(consumer, name); err != nil {
		t.Fatalf("confirm deletion: %v", err)
	}
}

func TestContract(t *testing.T) {
	for _, auto := range []bool{false, true} {
		t.Run(fmt.Sprintf("AutoStatus=%v", auto), func(t *testing.T) {
			h := &harness{store: memmaestro.New(memmaestro.Options{
				Consumers:  []string{"cluster-a"},
				AutoStatus: auto,
			})}
			contract.Run(t, h)
			if left := h.store.Works(); len(left) != 0 {
				t.Errorf("the scenarios left %d works behind", len(left))
			}
		})
	}
}
