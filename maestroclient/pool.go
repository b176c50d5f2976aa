package maestroclient

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"time"

	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

var _ adapter.Maestro = (*Pool)(nil)

// Pool implements adapter.Maestro on Options.Clients Clients, each with its
// own gRPC source connection, sdk-go publish limiter (about 50 events/s) and
// write lock, so writes for different bundles are neither capped at one
// client's rate nor serialized behind one lock.
//
// Every call for a bundle goes through the same Client, chosen by a hash of
// consumer and name: the writes of one bundle keep the order the caller
// makes them in, exactly as with one Client. No Client subscribes to status
// events (see newSourceClient) but the first, when Options.Status asks for
// the stream. All Clients share one REST connection pool and its read slots
// (Options.MaxConcurrentReads), and one per-consumer write budget
// (Options.ConsumerWrites), which the status stream, when there is one,
// feeds as well (the adaptive budget follows what the agents report).
//
// A Pool is safe for concurrent use. Create it with NewPool and release it
// with Close.
type Pool struct {
	clients []*Client
	writes  *budget
}

// NewPool connects opts.Clients Clients (default DefaultClients) with opts.
// Like New it does not wait for the server.
func NewPool(ctx context.Context, opts Options) (*Pool, error) {
	opts = opts.withDefaults()
	if err := opts.validate(); err != nil {
		return nil, fmt.Errorf("maestroclient: invalid options: %w", err)
	}
	rest, err := newRESTReader(opts)
	if err != nil {
		return nil, fmt.Errorf("maestroclient: %w", err)
	}
	writes := newBudget(opts.ConsumerWrites, time.Now)
	p := &Pool{clients: make([]*Client, 0, opts.Clients), writes: writes}
	opts = withBudgetStatus(opts, writes) // the budget follows what the agents report
	for i := range opts.Clients {
		if i > 0 {
			opts.Status = nil // one subscription per pool: every client would get every event
		}
		c, err := newClient(ctx, opts, rest, writes)
		if err != nil {
			_ = p.Close()
			return nil, err
		}
		if i > 0 {
			c.subscription = p.clients[0].subscription // the pool's one subscription
		}
		p.clients = append(p.clients, c)
	}
	return p, nil
}

// Size is the number of Clients in the pool.
func (p *Pool) Size() int { return len(p.clients) }

// Close closes every Client. The Pool must not be used after Close.
func (p *Pool) Close() error {
	var errs []error
	for _, c := range p.clients {
		errs = append(errs, c.Close())
	}
	return errors.Join(errs...)
}

// client is the Client every call for the bundle consumer/name goes through.
func (p *Pool) client(consumer, name string) *Client {
	if len(p.clients) == 1 {
		return p.clients[0]
	}
	h := fnv.New32a()
	_, _ = h.Write([]byte(consumer))
	_, _ = h.Write([]byte{0})
	_, _ = h.Write([]byte(name))
	return p.clients[h.Sum32()%uint32(len(p.clients))]
}

// Get reads a bundle; see Client.Get.
func (p *Pool) Get(ctx context.Context, consumer, name string) (*workv1.ManifestWork, error) {
	return p.client(consumer, name).Get(ctx, consumer, name)
}

// Create publishes a new bundle; see Client.Create.
func (p *Pool) Create(ctx context.Context, consumer string, work *workv1.ManifestWork, read adapter.CreateRead) (*workv1.ManifestWork, error) {
	name := ""
	if work != nil {
		name = work.Name
	}
	return p.client(consumer, name).Create(ctx, consumer, work, read)
}

// Update patches a bundle; see Client.Update.
func (p *Pool) Update(ctx context.Context, consumer string, observed, desired *workv1.ManifestWork) (*workv1.ManifestWork, error) {
	name := ""
	if observed != nil {
		name = observed.Name
	}
	return p.client(consumer, name).Update(ctx, consumer, observed, desired)
}

// Delete asks for a bundle's deletion; see Client.Delete.
func (p *Pool) Delete(ctx context.Context, consumer, name string) error {
	return p.client(consumer, name).Delete(ctx, consumer, name)
}

// Redelete sends a bundle's delete again; see Client.Redelete.
func (p *Pool) Redelete(ctx context.Context, consumer, name string) error {
	return p.client(consumer, name).Redelete(ctx, consumer, name)
}
