package adapter

import (
	"context"
	"sync/atomic"

	workv1 "open-cluster-management.io/api/work/v1"
)

// counting counts the Maestro calls of each event in the counter its
// context carries (Result.MaestroRequests); calls outside an event are not
// counted.
type counting struct{ next Maestro }

type requestCounterKey struct{}

func withRequestCounter(ctx context.Context, n *atomic.Int64) context.Context {
	return context.WithValue(ctx, requestCounterKey{}, n)
}

func count(ctx context.Context) {
	if n, ok := ctx.Value(requestCounterKey{}).(*atomic.Int64); ok {
		n.Add(1)
	}
}

func (c counting) Get(ctx context.Context, consumer, name string) (*workv1.ManifestWork, error) {
	count(ctx)
	return c.next.Get(ctx, consumer, name)
}

func (c counting) Create(ctx context.Context, consumer string, work *workv1.ManifestWork) (*workv1.ManifestWork, error) {
	count(ctx)
	return c.next.Create(ctx, consumer, work)
}

func (c counting) Update(ctx context.Context, consumer string, observed, desired *workv1.ManifestWork) (*workv1.ManifestWork, error) {
	count(ctx)
	return c.next.Update(ctx, consumer, observed, desired)
}

func (c counting) Delete(ctx context.Context, consumer, name string) error {
	count(ctx)
	return c.next.Delete(ctx, consumer, name)
}

func (c counting) GetBundles(ctx context.Context, keys []BundleKey) ([]*workv1.ManifestWork, error) {
	count(ctx)
	return c.next.GetBundles(ctx, keys)
}

func (c counting) Redelete(ctx context.Context, consumer, name string) error {
	count(ctx)
	return c.next.Redelete(ctx, consumer, name)
}
