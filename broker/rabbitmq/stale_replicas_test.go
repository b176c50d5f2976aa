package rabbitmq

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/broker"
	"github.com/bundle-adapter/bundle-adapter/broker/brokertest"
	"github.com/bundle-adapter/bundle-adapter/config"
	"github.com/bundle-adapter/bundle-adapter/hyperfleetapi/apistub"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/memmaestro"
	"github.com/bundle-adapter/bundle-adapter/memrun"
)

const (
	staleGet = "GET /api/hyperfleet/v1/clusters/c1"
	stalePut = "PUT /api/hyperfleet/v1/clusters/c1/statuses"
)

// Issue 41's sequence on the real RabbitMQ, with the real pipeline of the
// onprem example over one in-memory Maestro and one HyperFleet API:
//  1. replica a takes cluster c1's generation-1 event; its status PUT gets
//     a 503, so the message is handed back for redelivery;
//  2. the API moves to generation 2 and replica a applies the generation-2
//     event (the setup bundle updated, the Job's bundle recreated) and
//     reports generation 2;
//  3. the generation-1 redelivery lands on a process that never saw
//     generation 2: another replica (a is gone), or a itself restarted.
//
// That process writes nothing to Maestro, reports nothing, and acks the
// message, counted stale; the API's newest status stays at generation 2.
// Before the stale guard it updated the setup bundle back, deleted the
// generation-2 Job's bundle and PUT observed_generation 1 over it.
func TestStaleRedeliveryOnAnotherProcessWritesNothing(t *testing.T) {
	for _, variant := range []string{"another replica", "the same replica restarted"} {
		t.Run(variant, func(t *testing.T) {
			o := testOptions(t, "stale")
			cfg, err := config.Load(config.Files{Adapter: "../../config/examples/onprem/adapter-config.yaml",
				Task: "../../config/examples/onprem/task-config.yaml"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			store := memrun.NewMaestro(memmaestro.New(memrun.MaestroOptions(cfg, time.Now)))
			api := apistub.New("", nil)
			setGeneration := func(gen int) {
				api.Set(staleGet, apistub.Response{Status: 200, Body: json.RawMessage(fmt.Sprintf(`{"id":"c1","name":"c1","generation":%d}`, gen))})
			}
			setGeneration(1)
			api.FailNext(stalePut, 1)
			a := startReplica(t, o, cfg, store, api, "a")
			publish(t, o, staleEvent("g1", 1), nil)
			a.waitFor(t, "g1", broker.SettledRetried)

			setGeneration(2)
			publish(t, o, staleEvent("g2", 2), nil)
			a.waitFor(t, "g2", broker.SettledAcked)
			if got := lastObservedGeneration(t, api); got != "2" {
				t.Fatalf("after generation 2: the API's last status reports generation %v", got)
			}
			a.stop(t)
			writes, puts := len(store.Calls()), countPuts(api)

			b := startReplica(t, o, cfg, store, api, map[string]string{"another replica": "b", "the same replica restarted": "a"}[variant])
			res := b.waitFor(t, "g1", broker.SettledAcked)
			if res.Generation.Verdict != adapter.GenerationStale || res.Generation.Event != 1 || res.Generation.API != 2 {
				t.Errorf("the redelivery's generation check %+v, want stale: event 1, API 2", res.Generation)
			}
			for _, c := range store.Calls()[writes:] {
				if c.Verb != memmaestro.VerbGet && c.Verb != memmaestro.VerbGetBundles {
					t.Errorf("the stale redelivery wrote to Maestro: %s %s/%s", c.Verb, c.Consumer, c.Name)
				}
			}
			if n := countPuts(api) - puts; n != 0 {
				t.Errorf("the stale redelivery sent %d status reports", n)
			}
			if got := lastObservedGeneration(t, api); got != "2" {
				t.Errorf("the API's last status reports generation %v, want 2", got)
			}
			b.stop(t)
		})
	}
}

func staleEvent(id string, gen int) string {
	return fmt.Sprintf(`{"specversion":"1.0","id":%q,"type":"com.redhat.hyperfleet.cluster.reconcile","source":"hyperfleet-sentinel","data":{"id":"c1","kind":"Cluster","href":"/api/hyperfleet/v1/clusters/c1","generation":%d}}`, id, gen)
}

// replica is one adapter process: its own pipeline and dispatcher (so its
// own memory) on the shared Maestro and API, consuming the test's queue.
type replica struct {
	name    string
	run     *brokertest.Running
	cancel  context.CancelFunc
	stopped chan struct{}

	mu      sync.Mutex
	settled map[string]settledRun // by event id, the last run
	changed chan struct{}
}

type settledRun struct {
	outcome string
	res     *adapter.Result
}

func startReplica(t *testing.T, o Options, cfg *config.Config, store *memrun.Maestro, api *apistub.Stub, name string) *replica {
	t.Helper()
	p, err := memrun.NewPipeline(cfg, memrun.Fakes{Maestro: store, API: api}, time.Now, func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	r := &replica{name: name, settled: map[string]settledRun{}, changed: make(chan struct{}, 100), stopped: make(chan struct{})}
	d, err := broker.NewDispatcher(broker.DispatcherOptions{
		Decode: broker.Decode, Workers: 1, MaxDeliveries: 5,
		// The redelivery waits long enough for generation 2 to be applied
		// and the replica to be replaced.
		MinBackoff: 4 * time.Second, MaxBackoff: 4 * time.Second,
		Logger: testLogger().With("replica", name), Process: p.Run,
		Hooks: broker.Hooks{Processed: func(res *adapter.Result, _ time.Duration, outcome string) {
			r.mu.Lock()
			r.settled[res.Event.ID] = settledRun{outcome, res}
			r.mu.Unlock()
			r.changed <- struct{}{}
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	go func() { d.Run(ctx); close(r.stopped) }()
	r.run = brokertest.Start(t, New(o))
	go func() {
		for m := range r.run.Messages() {
			d.Handle(m)
		}
	}()
	return r
}

// waitFor waits until the replica settled event id as want and returns
// the run's result.
func (r *replica) waitFor(t *testing.T, id, want string) *adapter.Result {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		r.mu.Lock()
		s, ok := r.settled[id]
		r.mu.Unlock()
		if ok && s.outcome == want {
			return s.res
		}
		if ok && s.outcome != want && s.outcome != broker.SettledRetried {
			t.Fatalf("replica %s settled %s %s, want %s (error: %v)", r.name, id, s.outcome, want, s.res.Err())
		}
		select {
		case <-r.changed:
		case <-deadline:
			t.Fatalf("replica %s: %s not settled %s within 20s (last: %+v)", r.name, id, want, s)
		}
	}
}

// stop stops consuming (unacked messages go back to the queue) and the
// dispatcher, as a replica scaled down or restarted.
func (r *replica) stop(t *testing.T) {
	t.Helper()
	r.run.Stop(t)
	r.cancel()
	<-r.stopped
}

func countPuts(api *apistub.Stub) int {
	n := 0
	for _, c := range api.Calls() {
		if c.Method == "PUT" {
			n++
		}
	}
	return n
}

// lastObservedGeneration is observed_generation of the last status PUT the
// API accepted (one answered 503 is not the API's).
func lastObservedGeneration(t *testing.T, api *apistub.Stub) string {
	t.Helper()
	calls := api.Calls()
	for i := len(calls) - 1; i >= 0; i-- {
		if calls[i].Method != "PUT" {
			continue
		}
		body, _ := calls[i].Body.(map[string]any)
		return fmt.Sprint(body["observed_generation"])
	}
	t.Fatal("no status PUT")
	return ""
}
