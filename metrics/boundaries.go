package metrics

import (
	"context"
	"errors"
	"strconv"
	"time"

	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// Maestro wraps an adapter.Maestro and counts calls by verb and result code.
// A GetBundles call counts once, as verb get_bundles.
func (m *Metrics) Maestro(next adapter.Maestro) adapter.Maestro {
	return &maestro{next: next, c: m}
}

type maestro struct {
	next adapter.Maestro
	c    *Metrics
}

func (x *maestro) GetBundles(ctx context.Context, keys []adapter.BundleKey) ([]*workv1.ManifestWork, error) {
	ws, err := x.next.GetBundles(ctx, keys)
	x.c.maestroRequests.WithLabelValues("get_bundles", maestroCode(err)).Inc()
	return ws, err
}

func (x *maestro) Get(ctx context.Context, consumer, name string) (*workv1.ManifestWork, error) {
	w, err := x.next.Get(ctx, consumer, name)
	x.c.maestroRequests.WithLabelValues("get", maestroCode(err)).Inc()
	return w, err
}

func (x *maestro) Create(ctx context.Context, consumer string, work *workv1.ManifestWork, read adapter.CreateRead) (*workv1.ManifestWork, error) {
	w, err := x.next.Create(ctx, consumer, work, read)
	x.c.maestroRequests.WithLabelValues("create", maestroCode(err)).Inc()
	return w, err
}

func (x *maestro) Update(ctx context.Context, consumer string, observed, desired *workv1.ManifestWork) (*workv1.ManifestWork, error) {
	w, err := x.next.Update(ctx, consumer, observed, desired)
	x.c.maestroRequests.WithLabelValues("update", maestroCode(err)).Inc()
	return w, err
}

func (x *maestro) Delete(ctx context.Context, consumer, name string) error {
	start := time.Now()
	err := x.next.Delete(ctx, consumer, name)
	x.c.maestroRequests.WithLabelValues("delete", maestroCode(err)).Inc()
	if hf := x.c.hyperfleet(); hf != nil {
		hf.deleteSent(err, time.Since(start))
	}
	return err
}

// Redelete counts as verb redelete: a stalled deletion's delete sent again.
func (x *maestro) Redelete(ctx context.Context, consumer, name string) error {
	err := x.next.Redelete(ctx, consumer, name)
	x.c.maestroRequests.WithLabelValues("redelete", maestroCode(err)).Inc()
	return err
}

func isNotFound(err error) bool { return errors.Is(err, adapter.ErrNotFound) }

// maestroCode names a Maestro result for the code label.
func maestroCode(err error) string {
	switch {
	case err == nil:
		return "ok"
	case errors.Is(err, adapter.ErrNotFound):
		return "not_found"
	case errors.Is(err, adapter.ErrAlreadyExists):
		return "already_exists"
	case errors.Is(err, adapter.ErrUnderDeletion):
		return "under_deletion"
	case errors.Is(err, adapter.ErrConsumerNotRegistered):
		return "consumer_not_registered"
	case errors.Is(err, adapter.ErrUnavailable):
		return "unavailable"
	case errors.Is(err, adapter.ErrInvalid):
		return "invalid"
	default:
		return "error"
	}
}

// API wraps an adapter.API and counts calls by method and status.
func (m *Metrics) API(next adapter.API) adapter.API {
	return &api{next: next, c: m}
}

type api struct {
	next adapter.API
	c    *Metrics
}

func (x *api) Do(ctx context.Context, req adapter.APIRequest) (adapter.APIResponse, error) {
	resp, err := x.next.Do(ctx, req)
	code := "error"
	if err == nil {
		code = strconv.Itoa(resp.Status)
	}
	x.c.apiRequests.WithLabelValues(req.Method, code).Inc()
	return resp, err
}
