package rabbitmq

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/broker"
)

// The delivery contract end to end on the real RabbitMQ, through the
// dispatcher: a success is acked; a failing event is redelivered with
// backoff max_deliveries times, then dead-lettered with its last error; a
// malformed message is dead-lettered at once with the reason.
func TestDeliveryContractOnRabbitMQ(t *testing.T) {
	o := testOptions(t, "contract")
	var runs atomic.Int32
	d, err := broker.NewDispatcher(broker.DispatcherOptions{
		Decode: broker.Decode, Workers: 2, MaxDeliveries: 3,
		MinBackoff: 100 * time.Millisecond, MaxBackoff: 400 * time.Millisecond, Logger: testLogger(),
		Process: func(_ context.Context, ev adapter.Event) *adapter.Result {
			res := &adapter.Result{Event: ev, ExecutionStatus: adapter.ExecutionSuccess}
			if ev.Data["id"] == "failing" {
				runs.Add(1)
				pe := &adapter.PhaseError{Phase: "resources", Step: "job", Message: "maestro unavailable"}
				res.ExecutionStatus, res.Error, res.Errors = adapter.ExecutionFailed, pe, []*adapter.PhaseError{pe}
			}
			return res
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go d.Run(ctx)
	c := New(o)
	consumeDone := make(chan error, 1)
	go func() { consumeDone <- c.Consume(ctx, d.Handle) }()
	waitFor(t, "consumer subscribed", c.Ready)

	event := func(id string) string {
		return `{"specversion":"1.0","id":"ev-` + id + `","type":"com.redhat.hyperfleet.cluster.reconcile","source":"test","data":{"id":"` + id + `","kind":"Cluster","generation":1}}`
	}
	publish(t, o, event("ok"), nil)
	publish(t, o, event("failing"), nil)
	publish(t, o, "not a cloudevent", nil)

	dlq := o.withDefaults().DeadLetterQueueName()
	first := getOne(t, dlq)
	second := getOne(t, dlq)
	reasons := map[string]bool{}
	for _, m := range []string{reasonOf(first.Headers), reasonOf(second.Headers)} {
		reasons[m] = true
	}
	if !reasons["failed 3 deliveries, last error: resources job: maestro unavailable"] {
		t.Errorf("dead-letter reasons %v lack the failing event after 3 deliveries", reasons)
	}
	malformed := false
	for r := range reasons {
		if len(r) > 10 && r[:10] == "malformed:" {
			malformed = true
		}
	}
	if !malformed {
		t.Errorf("dead-letter reasons %v lack the malformed message", reasons)
	}
	if n := runs.Load(); n != 3 {
		t.Errorf("the failing event ran %d times, want 3 (max_deliveries)", n)
	}
	waitFor(t, "main queue drained (the good event acked)", func() bool { return queueDepth(t, o.QueueName()) == 0 })
	if n := queueDepth(t, dlq); n != 0 {
		t.Errorf("%d more messages dead-lettered, want only the two", n)
	}
	cancel()
	if err := <-consumeDone; err != nil && !errors.Is(err, context.Canceled) {
		t.Errorf("Consume: %v", err)
	}
}

func reasonOf(h map[string]any) string {
	s, _ := h[broker.ReasonAttribute].(string)
	return s
}
