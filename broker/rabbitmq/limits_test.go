package rabbitmq

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/broker"
)

// A message over broker.MaxEventBytes, published to the real broker, is
// dead-lettered at once by the dispatcher with a reason naming its size,
// and never reaches the pipeline; the next, normal event is processed.
func TestOversizedEventIsDeadLetteredOnTheBroker(t *testing.T) {
	o := testOptions(t, "oversized")
	processed := make(chan string, 10)
	d, err := broker.NewDispatcher(broker.DispatcherOptions{
		Decode: broker.Decode,
		Process: func(_ context.Context, ev adapter.Event) *adapter.Result {
			processed <- ev.ID
			return &adapter.Result{Event: ev, ExecutionStatus: adapter.ExecutionSuccess}
		},
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ran := make(chan struct{})
	go func() { d.Run(ctx); close(ran) }()
	c := New(o)
	consumed := make(chan error, 1)
	go func() { consumed <- c.Consume(ctx, d.Handle) }()
	waitFor(t, "consumer subscribed", c.Ready)

	event := func(id string, pad int) string {
		return fmt.Sprintf(`{"specversion":"1.0","id":%q,"type":"t","source":"s","data":{"id":"c1","kind":"Cluster","generation":1,"pad":%q}}`, id, strings.Repeat("x", pad))
	}
	big := event("e-big", broker.MaxEventBytes)
	publish(t, o, big, map[string]any{"content-type": "application/cloudevents+json"})
	dl := getOne(t, o.DeadLetterQueueName())
	reason, _ := dl.Headers[broker.ReasonAttribute].(string)
	want := fmt.Sprintf("body is %d bytes, over the event size limit of %d bytes (broker.MaxEventBytes)", len(big), broker.MaxEventBytes)
	if !strings.HasPrefix(reason, "malformed: ") || !strings.Contains(reason, want) {
		t.Errorf("dead-letter reason %q, want malformed naming %q", reason, want)
	}
	if len(dl.Body) != len(big) {
		t.Errorf("dead-lettered body is %d bytes, want the original %d", len(dl.Body), len(big))
	}

	publish(t, o, event("e-small", 10), nil)
	select {
	case id := <-processed:
		if id != "e-small" {
			t.Errorf("processed %s, want only e-small", id)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the normal event after the oversized one was not processed")
	}
	cancel()
	if err := <-consumed; err != nil {
		t.Errorf("Consume returned %v", err)
	}
	<-ran
}
