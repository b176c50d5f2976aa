package maestroclient

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	workv1client "open-cluster-management.io/api/client/work/clientset/versioned/typed/work/v1"
	"open-cluster-management.io/sdk-go/pkg/cloudevents/clients/common"
	"open-cluster-management.io/sdk-go/pkg/cloudevents/clients/utils"
	sourceclient "open-cluster-management.io/sdk-go/pkg/cloudevents/clients/work/source/client"
	grpcoptions "open-cluster-management.io/sdk-go/pkg/cloudevents/generic/options/grpc"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/internal/secret"
)

var _ adapter.Maestro = (*Client)(nil)

// Client implements adapter.Maestro on sdk-go's gRPC source work client
// (create, patch, delete) and Maestro's REST API (get). It is safe for concurrent
// use. Create it with New and release it with Close.
type Client struct {
	opts   Options
	log    *slog.Logger
	rest   *restReader
	works  *sourceclient.ManifestWorkSourceClient
	dialer *grpcoptions.GRPCDialer
	// transport says whether works holds its gRPC connection.
	transport *watchedTransport
	// subscription watches the status subscription of this client's pool
	// (its first client's transport), nil when none subscribes: while
	// Maestro refuses it, no write is sent (refusal.go).
	subscription *errorWatch
	cancel       context.CancelFunc
	// libLog receives the libraries' logs; quiet once closed is set.
	libLog slog.Handler
	closed *atomic.Bool

	// sem serializes the calls of the shared work client: SetNamespace
	// stores the namespace in it, so namespace and call go together.
	sem chan struct{}
	// writes is the per-consumer write budget, shared by a Pool's Clients.
	writes *budget
}

// New connects a Client. ctx bounds the client's life: its background
// goroutines (reconnects) stop when ctx ends or Close
// is called. The gRPC connection is established lazily, so New succeeds while
// Maestro is down; calls then fail with ErrUnavailable until it is back.
func New(ctx context.Context, opts Options) (*Client, error) {
	opts = opts.withDefaults()
	if err := opts.validate(); err != nil {
		return nil, fmt.Errorf("maestroclient: invalid options: %w", err)
	}
	rest, err := newRESTReader(opts)
	if err != nil {
		return nil, fmt.Errorf("maestroclient: %w", err)
	}
	writes := newBudget(opts.ConsumerWrites, time.Now)
	return newClient(ctx, withBudgetStatus(opts, writes), rest, writes)
}

// newClient connects a Client with defaulted, valid opts that reads through
// rest and spends writes from writes (both of which a Pool shares among its
// Clients).
func newClient(ctx context.Context, opts Options, rest *restReader, writes *budget) (*Client, error) {
	dialer, err := newDialer(opts)
	if err != nil {
		return nil, fmt.Errorf("maestroclient: %w", err)
	}
	closed := new(atomic.Bool)
	libLog := quietOnClose{opts.Logger.Handler(), closed}
	life, cancel := context.WithCancel(withLibraryLogger(ctx, libLog))
	works, transport, err := newSourceClient(life, rest, dialer, opts)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("maestroclient: source client for %s: %w", secret.MaskURL(opts.GRPCAddress), err)
	}
	var subscription *errorWatch
	if opts.Status != nil {
		subscription = &transport.watch
	}
	return &Client{
		opts: opts, log: opts.Logger, rest: rest, works: works, transport: transport, subscription: subscription,
		dialer: dialer, cancel: cancel, libLog: libLog, closed: closed, sem: make(chan struct{}, 1),
		writes: writes,
	}, nil
}

// Close stops the background goroutines and closes the gRPC connection.
// The Client must not be used after Close.
func (c *Client) Close() error {
	c.closed.Store(true)
	c.cancel()
	return c.dialer.Close()
}

// maxIdleConnsPerHost bounds the idle REST connections kept to Maestro.
const maxIdleConnsPerHost = 64

// userAgent is sent with every REST request.
const userAgent = "bundle-adapter-maestroclient"

func newRESTReader(opts Options) (*restReader, error) {
	tlsCfg, err := opts.HTTP.tlsConfig()
	if err != nil {
		return nil, fmt.Errorf("http: %w", err)
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.TLSClientConfig = tlsCfg
	// Every event reads its bundles concurrently with other events: keep
	// that many connections open instead of net/http's 2 per host, which
	// makes every read beyond the second dial a new connection.
	transport.MaxIdleConnsPerHost = maxIdleConnsPerHost
	// Bundles are a few KB: asking for gzip made Maestro spend about a fifth
	// of its CPU per read compressing them, and this client decompressing.
	transport.DisableCompression = true
	return &restReader{client: &http.Client{Transport: transport, Timeout: opts.Timeout},
		base: strings.TrimRight(opts.HTTPURL, "/"), slots: make(chan struct{}, opts.MaxConcurrentReads)}, nil
}

func newDialer(opts Options) (*grpcoptions.GRPCDialer, error) {
	tlsCfg, err := opts.GRPC.tlsConfig()
	if err != nil {
		return nil, fmt.Errorf("grpc: %w", err)
	}
	dialer := &grpcoptions.GRPCDialer{URL: opts.GRPCAddress, TLSConfig: tlsCfg,
		KeepAliveOptions: opts.Keepalive.grpc(), ExtraDialOpts: []grpc.DialOption{connectParams()}}
	if opts.GRPCTokenFile != "" {
		token, err := readSmallFile(opts.GRPCTokenFile)
		if err != nil {
			return nil, fmt.Errorf("grpc: read token file: %w", err)
		}
		dialer.Token = strings.TrimSpace(string(token))
	}
	return dialer, nil
}

// withConsumer runs fn, a write, on the shared work client scoped to
// consumer, holding the client's semaphore so no other call changes the
// namespace meanwhile. It first waits for consumer's write budget, without
// the semaphore: writes of other consumers go on meanwhile. A write that
// fails is taken back from the budget's outstanding writes of bundle
// consumer/name (it did not reach the agent). While Maestro refuses the
// pool's status subscription nothing is sent and the write fails with a
// SubscriptionRefusedError, not retried (refusal.go).
func (c *Client) withConsumer(ctx context.Context, consumer, name string,
	fn func(workv1client.ManifestWorkInterface) error) error {
	if err := c.subscription.refusalOrNil(); err != nil {
		return err
	}
	if err := c.writes.wait(ctx, consumer, name); err != nil {
		return err
	}
	select {
	case c.sem <- struct{}{}:
	case <-ctx.Done():
		c.writes.unsent(consumer, name)
		return waitEnded("waiting for the shared work client", ctx.Err())
	}
	defer func() { <-c.sem }()
	c.works.SetNamespace(consumer)
	err := c.subscription.orRefusal(fn(c.works))
	if err != nil {
		c.writes.unsent(consumer, name)
	}
	return err
}

// bundleID is the deterministic id Maestro gives the bundle of this source.
func (c *Client) bundleID(consumer, name string) string {
	return utils.UID(c.opts.SourceID, common.ManifestWorkGR.String(), consumer, name)
}
