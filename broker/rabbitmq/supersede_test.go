package rabbitmq

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/broker"
	"github.com/bundle-adapter/bundle-adapter/broker/brokertest"
)

// sentinelEvent is a Sentinel reconcile event of cluster c1 with CloudEvent
// id id.
func sentinelEvent(id string) string {
	return fmt.Sprintf(`{"specversion":"1.0","id":%q,"type":"com.redhat.hyperfleet.cluster.reconcile","source":"hyperfleet-sentinel","data":{"id":"c1","kind":"Cluster","generation":1}}`, id)
}

// Through the real consumer (issue 31): an older event retried through the
// retry queue comes back (delivery 2) after a newer event of its cluster
// was taken, and is acked as superseded without running; nothing is
// dead-lettered and nothing is left in the queues.
func TestRetriedOlderEventSupersededByNewer(t *testing.T) {
	o := testOptions(t, "supersede")
	var mu sync.Mutex
	runs := map[string]int{}
	var superseded atomic.Int32
	d, err := broker.NewDispatcher(broker.DispatcherOptions{
		Decode: broker.Decode, Workers: 1, MaxDeliveries: 5, MinBackoff: time.Second, MaxBackoff: time.Second,
		Logger: testLogger(), Hooks: broker.Hooks{Superseded: func() { superseded.Add(1) }},
		Process: func(_ context.Context, ev adapter.Event) *adapter.Result {
			mu.Lock()
			runs[ev.ID]++
			mu.Unlock()
			res := &adapter.Result{Event: ev, ExecutionStatus: adapter.ExecutionSuccess}
			if ev.ID == "old" {
				res.ExecutionStatus = adapter.ExecutionFailed
				res.Error = &adapter.PhaseError{Phase: "post", Message: errors.New("api refused the status report").Error()}
				res.Errors = []*adapter.PhaseError{res.Error}
			}
			return res
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	dispatched := make(chan struct{})
	go func() { d.Run(ctx); close(dispatched) }()
	t.Cleanup(func() { cancel(); <-dispatched })
	r := brokertest.Start(t, New(o))
	go func() {
		for m := range r.Messages() {
			d.Handle(m)
		}
	}()
	ran := func(id string) int { mu.Lock(); defer mu.Unlock(); return runs[id] }

	publish(t, o, sentinelEvent("old"), nil)
	waitFor(t, "old's first run", func() bool { return ran("old") == 1 })
	publish(t, o, sentinelEvent("new"), nil) // before old's redelivery, one second later
	waitFor(t, "old's redelivery superseded", func() bool { return superseded.Load() == 1 })
	if got := ran("new"); got != 1 {
		t.Errorf("new ran %d times, want 1", got)
	}
	if got := ran("old"); got != 1 {
		t.Errorf("old ran %d times, want 1 (its redelivery superseded)", got)
	}
	r.Stop(t)
	for _, q := range []string{o.withDefaults().QueueName(), o.withDefaults().DeadLetterQueueName()} {
		if n := queueDepth(t, q); n != 0 {
			t.Errorf("%d messages left in %s, want 0", n, q)
		}
	}
}
