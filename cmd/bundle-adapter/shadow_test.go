package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/broker"
	"github.com/bundle-adapter/bundle-adapter/broker/pubsub"
	"github.com/bundle-adapter/bundle-adapter/broker/rabbitmq"
	"github.com/bundle-adapter/bundle-adapter/config"
	"github.com/bundle-adapter/bundle-adapter/hyperfleetapi/apistub"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/memmaestro"
	"github.com/bundle-adapter/bundle-adapter/metrics"
)

// A shadow replica consumes its own queue or subscription: never the live
// adapter's.
func TestShadowConsumesItsOwnQueue(t *testing.T) {
	tests := []struct {
		name string
		plan startPlan
		want string
	}{
		{"rabbitmq", startPlan{rabbitmq: &rabbitmq.Options{Topic: "clusters", SubscriptionID: "bundle-adapter"}}, "clusters-bundle-adapter-shadow"},
		{"rabbitmq queue", startPlan{rabbitmq: &rabbitmq.Options{Topic: "clusters", Queue: "hyperfleet", SubscriptionID: "a"}}, "hyperfleet-a-shadow"},
		{"rabbitmq named shadow", startPlan{rabbitmq: &rabbitmq.Options{Topic: "clusters", SubscriptionID: "a-shadow"}}, "clusters-a-shadow"},
		{"pubsub", startPlan{pubsub: &pubsub.Options{Topic: "clusters", SubscriptionID: "bundle-adapter"}}, "bundle-adapter-shadow"},
		{"pubsub named", startPlan{pubsub: &pubsub.Options{Topic: "clusters", SubscriptionID: "a", Subscription: "live-sub"}}, "live-sub-shadow"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			live := tt.plan.subscriptionName()
			p := tt.plan
			if p.rabbitmq != nil {
				o := *p.rabbitmq
				p.rabbitmq = &o
			}
			if p.pubsub != nil {
				o := *p.pubsub
				p.pubsub = &o
			}
			p.useShadow()
			if got := p.subscriptionName(); got != tt.want {
				t.Errorf("shadow consumes %q, want %q", got, tt.want)
			}
			if !strings.HasSuffix(tt.name, "named shadow") && p.subscriptionName() == live {
				t.Errorf("shadow consumes the live adapter's %q", live)
			}
			if !p.shadow {
				t.Error("plan not marked shadow")
			}
		})
	}
}

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func testOptions(t *testing.T, store *memmaestro.Store, api adapter.API) adapter.Options {
	t.Helper()
	tc, err := config.LoadTaskConfig("../../adapter/testdata/task.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return adapter.Options{Task: tc, Adapter: config.AdapterInfo{Name: "test-adapter", Version: "0"},
		Maestro: store, API: api, Logger: quietLog(), LookupEnv: func(string) (string, bool) { return "", false }}
}

func reconcile(id string, gen int) adapter.Event {
	return adapter.Event{ID: "ev-" + id, Type: "com.redhat.hyperfleet.cluster.reconcile", Source: "test",
		Data: map[string]any{"id": id, "kind": "Cluster", "generation": int64(gen)}}
}

// serve --shadow's process writes nothing to Maestro or the HyperFleet API,
// acks what it ran, and counts its decisions.
func TestShadowProcessWritesNothing(t *testing.T) {
	store := memmaestro.New(memmaestro.Options{Consumers: []string{"c1"}})
	api := apistub.New("v1", nil)
	m := metrics.New()
	process, err := newProcess(testOptions(t, store, api), true, m, quietLog())
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"a", "b"} {
		if res := process(context.Background(), reconcile(id, 1)); res.Disposition() != adapter.Ack {
			t.Fatalf("%s: disposition %v (%v), want ack", id, res.Disposition(), res.Error)
		}
	}
	for _, c := range store.Calls() {
		if c.Verb != memmaestro.VerbGet && c.Verb != memmaestro.VerbGetBundles {
			t.Errorf("a Maestro write in shadow mode: %v", c)
		}
	}
	for _, c := range api.Calls() {
		if c.Method != "GET" {
			t.Errorf("a HyperFleet API write in shadow mode: %s %s", c.Method, c.Path)
		}
	}
	if n := testutil.CollectAndCount(m.Registry, "bundle_adapter_shadow_decisions_total"); n == 0 {
		t.Error("no shadow decision counted")
	}
}

// stubMessage is a broker message that records how it was settled.
type stubMessage struct {
	id, body string
	mu       sync.Mutex
	settled  string
}

func (m *stubMessage) ID() string                    { return m.id }
func (m *stubMessage) Body() []byte                  { return []byte(m.body) }
func (m *stubMessage) Attributes() map[string]string { return nil }
func (m *stubMessage) Deliveries() int               { return 1 }
func (m *stubMessage) settle(how string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.settled = how
	return nil
}
func (m *stubMessage) Ack(context.Context) error                  { return m.settle("ack") }
func (m *stubMessage) Retry(context.Context, time.Duration) error { return m.settle("retry") }
func (m *stubMessage) Release(context.Context) error              { return m.settle("release") }
func (m *stubMessage) DeadLetter(context.Context, string) error   { return m.settle("dead-letter") }
func (m *stubMessage) how() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.settled
}

// stubConsumer hands its messages over, then waits for the end.
type stubConsumer struct{ msgs []*stubMessage }

func (c *stubConsumer) Consume(ctx context.Context, handle func(broker.Message)) error {
	for _, m := range c.msgs {
		handle(m)
	}
	<-ctx.Done()
	return nil
}

func (c *stubConsumer) Ready() bool { return true }

// Removing bundle-adapter (rollback) leaves every object in place: stopping
// serve makes no write, in live mode as in shadow mode.
func TestStoppingServeWritesNothing(t *testing.T) {
	for _, shadowMode := range []bool{false, true} {
		t.Run(fmt.Sprintf("shadow=%v", shadowMode), func(t *testing.T) {
			store := memmaestro.New(memmaestro.Options{Consumers: []string{"c1"}})
			api := apistub.New("v1", nil)
			process, err := newProcess(testOptions(t, store, api), shadowMode, metrics.New(), quietLog())
			if err != nil {
				t.Fatal(err)
			}
			d, err := broker.NewDispatcher(broker.DispatcherOptions{Process: process, Decode: broker.Decode, Workers: 2,
				EventTimeout: 10 * time.Second, MaxDeliveries: 3, MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond, Logger: quietLog()})
			if err != nil {
				t.Fatal(err)
			}
			c := &stubConsumer{}
			for _, id := range []string{"a", "b", "c"} {
				c.msgs = append(c.msgs, &stubMessage{id: id, body: `{"specversion":"1.0","id":"ev-` + id +
					`","type":"com.redhat.hyperfleet.cluster.reconcile","source":"test","datacontenttype":"application/json","data":{"id":"` + id + `","kind":"Cluster","generation":1}}`})
			}
			ctx, stop := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- consumeUntilDone(ctx, d, c, 5*time.Second, quietLog()) }()
			deadline := time.Now().Add(10 * time.Second)
			for _, m := range c.msgs {
				for m.how() == "" && time.Now().Before(deadline) {
					time.Sleep(5 * time.Millisecond)
				}
				if m.how() != "ack" {
					t.Fatalf("message %s settled %q, want ack", m.id, m.how())
				}
			}
			bundles := len(liveBundles(t, store))
			store.ResetCalls()
			callsBefore := len(api.Calls())
			stop()
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			if calls := store.Calls(); len(calls) != 0 {
				t.Errorf("stopping serve called Maestro: %v", calls)
			}
			if calls := api.Calls()[callsBefore:]; len(calls) != 0 {
				t.Errorf("stopping serve called the HyperFleet API: %v", calls)
			}
			if got := len(liveBundles(t, store)); got != bundles {
				t.Errorf("%d bundles after stopping, want the %d there before", got, bundles)
			}
			if want := map[bool]int{false: 6, true: 0}[shadowMode]; bundles != want {
				t.Errorf("%d bundles written, want %d", bundles, want)
			}
		})
	}
}

// liveBundles lists the bundles of the three clusters in store.
func liveBundles(t *testing.T, store *memmaestro.Store) []string {
	t.Helper()
	var out []string
	for _, id := range []string{"a", "b", "c"} {
		for _, n := range []string{id + "-config", id + "-job"} {
			if w, err := store.Get(context.Background(), "c1", n); err == nil && w.DeletionTimestamp == nil {
				out = append(out, n)
			}
		}
	}
	return out
}

// serve --shadow gets to connecting with a shadow plan on the -shadow
// queue; serve without it, with the live queue.
func TestServeShadowFlagPlansAShadowReplica(t *testing.T) {
	reached := stopBeforeConnecting(t)
	files := []string{"-c", ex + "onprem/adapter-config.yaml", "-t", ex + "onprem/task-config.yaml", "--broker-config", ex + "onprem/broker.yaml"}
	for _, shadowMode := range []bool{false, true} {
		args := append([]string{"serve", "--listen", "127.0.0.1:0", "--metrics-listen", ""}, files...)
		if shadowMode {
			args = append(args, "--shadow")
		}
		code, _, errOut := runCLI(t, args...)
		plan := reached()
		if code != 0 || plan == nil {
			t.Fatalf("shadow=%v: exit %d, reached connecting %v\n%s", shadowMode, code, plan != nil, errOut)
		}
		name := plan.subscriptionName()
		if plan.shadow != shadowMode || strings.HasSuffix(name, shadowSuffix) != shadowMode {
			t.Errorf("shadow=%v: plan shadow %v, consumes %q", shadowMode, plan.shadow, name)
		}
	}
}
