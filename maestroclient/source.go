package maestroclient

import (
	"context"
	"errors"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	workv1 "open-cluster-management.io/api/work/v1"
	"open-cluster-management.io/sdk-go/pkg/cloudevents/clients/common"
	"open-cluster-management.io/sdk-go/pkg/cloudevents/clients/store"
	"open-cluster-management.io/sdk-go/pkg/cloudevents/clients/utils"
	workpayload "open-cluster-management.io/sdk-go/pkg/cloudevents/clients/work/payload"
	sourceclient "open-cluster-management.io/sdk-go/pkg/cloudevents/clients/work/source/client"
	sourcecodec "open-cluster-management.io/sdk-go/pkg/cloudevents/clients/work/source/codec"
	ceclients "open-cluster-management.io/sdk-go/pkg/cloudevents/generic/clients"
	grpcoptions "open-cluster-management.io/sdk-go/pkg/cloudevents/generic/options/grpc"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// newSourceClient is maestro's grpcsource work client: the same sdk-go
// ManifestWorkSourceClient and CloudEvents source client, over a store that
// reads bundles through REST as grpcsource's does. It subscribes to the
// source's status events only when opts.Status wants them (the bundle
// view): otherwise the subscription only cost CPU on both ends, Maestro
// encoding every agent status update for every client of a source and
// each client decoding it and dropping it. The transport it returns tells
// whether the client holds its connection (see watchedTransport).
func newSourceClient(ctx context.Context, rest *restReader, dialer *grpcoptions.GRPCDialer,
	opts Options) (*sourceclient.ManifestWorkSourceClient, *watchedTransport, error) {
	sourceID := opts.SourceID
	grpcOpts := &grpcoptions.GRPCOptions{Dialer: dialer}
	if opts.ServerHealthinessTimeout > 0 {
		grpcOpts.ServerHealthinessTimeout = &opts.ServerHealthinessTimeout
	}
	sourceOpts := grpcoptions.NewSourceOptions(grpcOpts, sourceID, workpayload.ManifestBundleEventDataType)
	transport := &watchedTransport{CloudEventTransport: sourceOpts.CloudEventsTransport, life: ctx}
	sourceOpts.CloudEventsTransport = transport
	ce, err := ceclients.NewCloudEventSourceClient[*workv1.ManifestWork](ctx, sourceOpts,
		nil, nil, // no resync: no lister and no status hashes needed
		sourcecodec.NewManifestBundleCodec())
	if err != nil {
		return nil, nil, err
	}
	if opts.Status != nil {
		subscribeStatus(ctx, ce, opts.Status)
	}
	return sourceclient.NewManifestWorkSourceClient(sourceID, &restStore{rest: rest, sourceID: sourceID}, ce), transport, nil
}

// restStore is the store the sdk-go work client consults before it
// publishes: Create checks that the bundle does not exist, Patch and Delete
// start from the bundle as Maestro holds it. Every read goes to Maestro's
// REST API; nothing is cached, nothing is watched.
type restStore struct {
	rest     *restReader
	sourceID string
}

var _ store.ClientWatcherStore[*workv1.ManifestWork] = (*restStore)(nil)

var errNoWatch = errors.New("maestroclient: watching and listing bundles is not supported")

// Get reads the bundle; a 404 is (nil, false, nil). A bundle ctx marks
// known absent (withKnownAbsent) is (nil, false, nil) without a read.
func (s *restStore) Get(ctx context.Context, namespace, name string) (*workv1.ManifestWork, bool, error) {
	if knownAbsent(ctx, namespace, name) {
		return nil, false, nil
	}
	work, err := s.rest.bundle(ctx, utils.UID(s.sourceID, common.ManifestWorkGR.String(), namespace, name))
	switch {
	case errors.Is(err, adapter.ErrNotFound):
		return nil, false, nil
	case err != nil:
		return nil, false, err
	}
	return work, true, nil
}

func (s *restStore) GetWatcher(context.Context, string, metav1.ListOptions) (watch.Interface, error) {
	return nil, errNoWatch
}

func (s *restStore) List(context.Context, string, metav1.ListOptions) (*store.ResourceList[*workv1.ManifestWork], error) {
	return nil, errNoWatch
}

func (s *restStore) ListAll(context.Context) ([]*workv1.ManifestWork, error) { return nil, errNoWatch }

// HandleReceivedResource is never called: the client does not subscribe.
func (s *restStore) HandleReceivedResource(context.Context, *workv1.ManifestWork) error { return nil }

func (s *restStore) Add(runtime.Object) error    { return nil }
func (s *restStore) Update(runtime.Object) error { return nil }
func (s *restStore) Delete(runtime.Object) error { return nil }
func (s *restStore) HasInitiated() bool          { return true }

// subscribeStatus hands ce's status events and (re)subscriptions to sink
// until ctx ends.
func subscribeStatus(ctx context.Context, ce *ceclients.CloudEventSourceClient[*workv1.ManifestWork], sink StatusSink) {
	ce.Subscribe(ctx, func(_ context.Context, work *workv1.ManifestWork) error {
		sink.Status(work)
		return nil
	})
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-ce.SubscribedChan():
				sink.Subscribed()
			}
		}
	}()
}

type knownAbsentKey struct{}

// withKnownAbsent marks ctx for sdk-go's existence check of a create: the
// caller's own read of consumer/name answered 404 in this event.
func withKnownAbsent(ctx context.Context, consumer, name string) context.Context {
	return context.WithValue(ctx, knownAbsentKey{}, adapter.BundleKey{Consumer: consumer, Name: name})
}

func knownAbsent(ctx context.Context, consumer, name string) bool {
	k, ok := ctx.Value(knownAbsentKey{}).(adapter.BundleKey)
	return ok && k == adapter.BundleKey{Consumer: consumer, Name: name}
}
