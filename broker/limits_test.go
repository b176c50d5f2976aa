package broker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// structuredEvent is a valid structured-mode CloudEvent of exactly size
// bytes (padded in its data).
func structuredEvent(t *testing.T, size int) []byte {
	t.Helper()
	const head = `{"specversion":"1.0","id":"e-big","type":"com.redhat.hyperfleet.cluster.reconcile","source":"test","data":{"id":"c1","kind":"Cluster","generation":1,"pad":"`
	const tail = `"}}`
	pad := size - len(head) - len(tail)
	if pad < 0 {
		t.Fatalf("size %d too small", size)
	}
	return []byte(head + strings.Repeat("x", pad) + tail)
}

// A message body over MaxEventBytes is not decoded: it is dead-lettered at
// once as malformed, with a reason naming its size and the limit, and the
// pipeline never sees it. A body of exactly the limit is processed.
func TestOversizedEventIsDeadLettered(t *testing.T) {
	if MaxEventBytes != 1<<20 {
		t.Fatalf("MaxEventBytes = %d, documented as 1 MiB", MaxEventBytes)
	}
	var mu sync.Mutex
	var processed []string
	var deadLetters []string
	d, err := NewDispatcher(DispatcherOptions{
		Decode: Decode,
		Process: func(_ context.Context, ev adapter.Event) *adapter.Result {
			mu.Lock()
			processed = append(processed, ev.ID)
			mu.Unlock()
			return &adapter.Result{Event: ev, ExecutionStatus: adapter.ExecutionSuccess}
		},
		Hooks:  Hooks{DeadLettered: func(reason string) { mu.Lock(); deadLetters = append(deadLetters, reason); mu.Unlock() }},
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { d.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()

	big := &fakeMessage{id: "m-big", body: structuredEvent(t, MaxEventBytes+1), deliveries: 1, done: make(chan struct{})}
	d.Handle(big)
	if got := big.wait(t); got != "dead-letter" {
		t.Fatalf("oversized message settled %s, want dead-letter", got)
	}
	for _, want := range []string{
		"malformed: ", "message m-big",
		fmt.Sprintf("body is %d bytes, over the event size limit of %d bytes (broker.MaxEventBytes)", MaxEventBytes+1, MaxEventBytes),
	} {
		if !strings.Contains(big.reason, want) {
			t.Errorf("dead-letter reason %q does not contain %q", big.reason, want)
		}
	}
	if len(big.reason) > 1000 {
		t.Errorf("dead-letter reason is %d bytes; it must not carry the body", len(big.reason))
	}

	atLimit := &fakeMessage{id: "m-limit", body: structuredEvent(t, MaxEventBytes), deliveries: 1, done: make(chan struct{})}
	d.Handle(atLimit)
	if got := atLimit.wait(t); got != "ack" {
		t.Fatalf("a message of exactly MaxEventBytes settled %s (%s), want ack", got, atLimit.reason)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(processed) != 1 || processed[0] != "e-big" {
		t.Errorf("processed %v, want only the message at the limit", processed)
	}
	if len(deadLetters) != 1 {
		t.Errorf("DeadLettered hook called %d times, want 1", len(deadLetters))
	}
}

// The size check comes first, in both content modes: the error is an
// *adapter.InvalidEventError naming the message, the event id when the
// attributes carry one, and the size.
func TestDecodeRefusesOversizedBody(t *testing.T) {
	body := []byte(`{"id":"c1","pad":"` + strings.Repeat("x", MaxEventBytes) + `"}`)
	m := &fakeMessage{id: "m-bin", body: body}
	bin := &attrMessage{fakeMessage: m, attrs: map[string]string{"ce-id": "e-1", "ce-specversion": "1.0", "ce-type": "t", "ce-source": "s"}}
	_, err := Decode(bin)
	var inv *adapter.InvalidEventError
	if !errors.As(err, &inv) {
		t.Fatalf("Decode = %v (%T), want *adapter.InvalidEventError", err, err)
	}
	for _, want := range []string{"invalid event e-1", "message m-bin", fmt.Sprintf("body is %d bytes", len(body)), "event size limit of 1048576 bytes"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
}

type attrMessage struct {
	*fakeMessage
	attrs map[string]string
}

func (m *attrMessage) Attributes() map[string]string { return m.attrs }
