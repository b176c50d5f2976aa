// Package agentsim is a simulated Maestro agent for tests. It connects to the
// agent gRPC broker of a real Maestro server as one consumer, through sdk-go's
// work agent client, and answers the bundles it receives without any
// Kubernetes cluster: it reports them applied and available (with optional
// status feedback), and confirms their deletion at once, after a delay, or
// only when the test releases it. It exists for fault injection; it is not a
// model of what a real agent applies.
package agentsim

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	workclientset "open-cluster-management.io/api/client/work/clientset/versioned"
	workv1client "open-cluster-management.io/api/client/work/clientset/versioned/typed/work/v1"
	workinformers "open-cluster-management.io/api/client/work/informers/externalversions"
	worklisters "open-cluster-management.io/api/client/work/listers/work/v1"
	workv1 "open-cluster-management.io/api/work/v1"
	"open-cluster-management.io/sdk-go/pkg/cloudevents/clients/options"
	agentclient "open-cluster-management.io/sdk-go/pkg/cloudevents/clients/work/agent/client"
	"open-cluster-management.io/sdk-go/pkg/cloudevents/clients/work/agent/codec"
	grpcoptions "open-cluster-management.io/sdk-go/pkg/cloudevents/generic/options/grpc"
)

// DeleteMode says how the agent answers a deletion request.
type DeleteMode int

const (
	// DeleteAtOnce confirms a deletion as soon as it arrives.
	DeleteAtOnce DeleteMode = iota
	// DeleteAfterDelay confirms a deletion Options.DeleteDelay after it arrived.
	DeleteAfterDelay
	// DeleteOnRelease holds every deletion (Maestro keeps the bundle with its
	// deletionTimestamp) until Agent.Release names it; never, if no one does.
	DeleteOnRelease
)

// DefaultBrokerAddress is Maestro's default agent gRPC broker address.
const DefaultBrokerAddress = "127.0.0.1:8091"

// Options configures an Agent.
type Options struct {
	// BrokerAddress is the host:port of Maestro's agent gRPC broker
	// (--grpc-broker-bindport), plaintext. Default DefaultBrokerAddress.
	BrokerAddress string
	// Consumer is the consumer (cluster) name the agent serves. Required.
	Consumer string
	// Delete selects the answer to deletions. Default DeleteAtOnce.
	Delete DeleteMode
	// DeleteDelay is the wait of DeleteAfterDelay.
	DeleteDelay time.Duration
	// LoseDeletes is a fault: the first LoseDeletes deletion requests each
	// bundle receives are lost the way sdk-go's agent store race loses them
	// on a real agent (a status patch racing the delete event writes the
	// cached work back without its deletionTimestamp). The agent reports
	// nothing, the bundle stays deleting in Maestro, and only a deletion
	// request delivered again (a delete re-sent through Maestro, a resync)
	// is answered as Delete says. Default 0: nothing is lost.
	LoseDeletes int
	// NoDeletionSweep runs the agent as the real agent Maestro is built with
	// (sdk-go v1.1.1-0.20260128013609, ocm v1.1.1-0.20260127130621) answers
	// deletions. Its agent client has no periodic sweep: the sdk-go in this
	// module (v1.3.1-0.20260630085947) starts one in
	// NewManifestWorkAgentClient (deleteWork, every 2 s) that confirms every
	// stored work deleting without finalizers; with NoDeletionSweep it is not
	// started. And ocm's ManifestWorkFinalizeController reports a deletion only
	// by removing the work's finalizer (through ManifestWorkAgentClient.Patch):
	// with NoDeletionSweep the agent answers a deleting bundle only while
	// workv1.ManifestWorkFinalizer is on it, and one without it, no one
	// answers. Default false: the sweep runs, and the agent answers every
	// deleting bundle.
	NoDeletionSweep bool
	// LoseFinalizers is a fault: the first LoseFinalizers deletion requests
	// each bundle receives leave its stored work deleting without the agent's
	// finalizer, a state sdk-go's agent store keeps through any re-sent
	// delete (maestroclient TestAgentStoreRedeleteKeepsAMissingFinalizer): the
	// agent deletes the bundle's objects (it has none), drops the finalizer
	// and reports nothing. Later deletion requests (a delete re-sent through
	// Maestro) go through sdk-go's AgentInformerWatcherStore.
	// HandleReceivedResource as any, which copies their deletionTimestamp and
	// not their finalizer onto the stored work, so no one answers them and the
	// bundle stays deleting in Maestro; a new agent, whose empty store takes
	// the resync's deletion whole, finalizer included, confirms it. How a real
	// agent's store comes to this state is not modelled. It requires
	// NoDeletionSweep: the sweep would confirm the bundle within 2 s.
	// Default 0: nothing is lost.
	LoseFinalizers int
	// ApplyRate, when positive, is how many bundles per second the agent
	// reports applied at most (one every 1/ApplyRate, no burst): an agent
	// slower than its source, or one that just keeps up. Default 0: as fast
	// as it receives them. Negative is refused.
	ApplyRate float64
	// Workers is how many bundles the agent syncs at once (each bundle
	// name is synced by one worker at a time). Default 1: one at a time,
	// each answer a synchronous status publish through Maestro, which caps
	// one agent at about 50 bundles/s here; an agent meant to keep up with
	// a source (the bench's one-consumer phase) needs several. Negative is
	// refused.
	Workers int
	// Feedback, when set, is reported as status feedback of every manifest.
	Feedback []workv1.FeedbackValue
	// Logger receives the agent's logs. Default slog.Default().
	Logger *slog.Logger
	// OnSpec, when set, receives every spec change the agent's informer
	// sees (a recorder's hook: bench/soak writes them to its history). It
	// runs on the informer's goroutine and must not block. Default nil.
	OnSpec func(SpecEvent)
	// OnReceive, when set, receives every spec event as Maestro sent it
	// (decoded, before the agent's store takes it): what reached the agent,
	// where OnSpec is what its informer saw. It runs on the agent client's
	// receiving goroutine and must not block. Default nil.
	OnReceive func(*workv1.ManifestWork)
}

// Agent is a running simulated agent. Stop it with Stop.
type Agent struct {
	opts    Options
	log     *slog.Logger
	works   workv1client.ManifestWorkInterface
	store   *guardedStore
	lister  worklisters.ManifestWorkNamespaceLister
	queue   workqueue.TypedRateLimitingInterface[string]
	cancel  context.CancelFunc
	done    chan struct{}
	pace    *pacer       // Options.ApplyRate
	applied atomic.Int64 // generations reported applied (Applied)

	mu      sync.Mutex
	holds   map[string]hold // by uid: deletions released, held or being confirmed
	lost    map[string]int  // by uid: deletion requests lost (Options.LoseDeletes)
	dropped map[string]int  // by uid: finalizers lost (Options.LoseFinalizers)

	seen *redeliveries // the informer's goroutine only (record)
}

// Start connects an agent for opts.Consumer and returns once its informer
// has synced. The agent runs until Stop or the end of ctx.
func Start(ctx context.Context, opts Options) (*Agent, error) {
	if opts.Consumer == "" {
		return nil, errors.New("agentsim: consumer is required")
	}
	if opts.ApplyRate < 0 {
		return nil, errors.New("agentsim: ApplyRate must not be negative")
	}
	if opts.Workers < 0 {
		return nil, errors.New("agentsim: Workers must not be negative")
	}
	if opts.LoseFinalizers > 0 && !opts.NoDeletionSweep {
		return nil, errors.New("agentsim: LoseFinalizers requires NoDeletionSweep")
	}
	if opts.BrokerAddress == "" {
		opts.BrokerAddress = DefaultBrokerAddress
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	log := opts.Logger.With("agent", opts.Consumer)
	ctx, cancel := context.WithCancel(klog.NewContext(ctx, logr.FromSlogHandler(log.Handler()).V(1)))
	local := newGuardedStore(func(name string) {
		log.Info("kept a deletion the agent's own status write would have undone (sdk-go store race)", "name", name)
	})
	local.received = opts.OnReceive
	works, err := newClient(ctx, opts, local)
	if err != nil {
		cancel()
		return nil, err
	}
	a := &Agent{
		opts: opts, log: log, works: works, store: local, cancel: cancel,
		done: make(chan struct{}), pace: newPacer(opts.ApplyRate), holds: map[string]hold{}, lost: map[string]int{}, dropped: map[string]int{},
		seen: newRedeliveries(),
		queue: workqueue.NewTypedRateLimitingQueue(workqueue.NewTypedItemExponentialFailureRateLimiter[string](
			10*time.Millisecond, time.Second)),
	}
	if err := a.run(ctx); err != nil {
		cancel() // ends whatever run started
		return nil, err
	}
	return a, nil
}

// newClient connects sdk-go's work agent client as work.NewAgentClientHolder
// does, starting its deletion sweep unless opts.NoDeletionSweep: the sweep
// lives as long as the context NewManifestWorkAgentClient is given.
func newClient(ctx context.Context, opts Options, local *guardedStore) (
	*agentclient.ManifestWorkAgentClient, error) {
	grpcOpts := &grpcoptions.GRPCOptions{Dialer: &grpcoptions.GRPCDialer{URL: opts.BrokerAddress}}
	clientOpts := options.NewGenericClientOptions(grpcOpts, codec.NewManifestBundleCodec(), opts.Consumer+"-agentsim").
		WithClusterName(opts.Consumer).
		WithClientWatcherStore(local)
	events, err := clientOpts.AgentClient(ctx)
	if err != nil {
		return nil, fmt.Errorf("agentsim: connect to broker %s: %w", opts.BrokerAddress, err)
	}
	sweepCtx := ctx
	if opts.NoDeletionSweep {
		var stop context.CancelFunc
		sweepCtx, stop = context.WithCancel(ctx)
		stop() // the sweep's loop returns before its first pass
	}
	works := agentclient.NewManifestWorkAgentClient(sweepCtx, opts.Consumer, local, events)
	works.SetNamespace(opts.Consumer)
	return works, nil
}

// clientset serves the informer factory the one agent client, as sdk-go's
// internal WorkClientSetWrapper does; the factory calls WorkV1 only, the
// other methods are the embedded nil interface's.
type clientset struct {
	workclientset.Interface
	works workv1client.ManifestWorkInterface
}

func (c clientset) WorkV1() workv1client.WorkV1Interface { return workV1{works: c.works} }

type workV1 struct {
	works workv1client.ManifestWorkInterface
}

// ManifestWorks ignores the namespace: the agent client serves its consumer's.
func (c workV1) ManifestWorks(string) workv1client.ManifestWorkInterface { return c.works }

func (workV1) AppliedManifestWorks() workv1client.AppliedManifestWorkInterface { return nil }

func (workV1) RESTClient() rest.Interface { return nil }

// run starts the informer, which queues the names of changed bundles, and
// the worker that handles them; it waits for the informer's first sync.
func (a *Agent) run(ctx context.Context) error {
	factory := workinformers.NewSharedInformerFactoryWithOptions(clientset{works: a.works}, 10*time.Minute,
		workinformers.WithNamespace(a.opts.Consumer))
	informer := factory.Work().V1().ManifestWorks().Informer()
	a.lister = factory.Work().V1().ManifestWorks().Lister().ManifestWorks(a.opts.Consumer)
	enqueue := func(obj any) {
		if w, ok := obj.(*workv1.ManifestWork); ok {
			a.queue.Add(w.Name)
		}
	}
	_, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { a.record(nil, obj); enqueue(obj) },
		UpdateFunc: func(old, obj any) { a.record(old, obj); enqueue(obj) },
		DeleteFunc: func(obj any) {
			if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = d.Obj
			}
			a.record(obj, nil)
		},
	})
	if err != nil {
		return fmt.Errorf("agentsim: %w", err)
	}
	var wg sync.WaitGroup
	workers := max(1, a.opts.Workers)
	wg.Add(1 + workers)
	go func() { defer wg.Done(); informer.Run(ctx.Done()) }()
	for range workers {
		go func() { defer wg.Done(); a.work(ctx) }()
	}
	go func() { <-ctx.Done(); a.queue.ShutDown(); wg.Wait(); close(a.done) }()
	if !cache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
		return errors.New("agentsim: informer did not sync")
	}
	return nil
}

// Stop disconnects the agent and waits for its goroutines to end. Bundles it
// holds stay pending in Maestro.
func (a *Agent) Stop() {
	a.cancel()
	<-a.done
}
