package view

import (
	"context"
	"errors"

	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// Maestro wraps next so that its reads feed v and its writes forget what v
// holds of the bundle written. It changes no answer of next.
func Maestro(next adapter.Maestro, v *View) adapter.Maestro {
	return &feeding{next: next, v: v}
}

type feeding struct {
	next adapter.Maestro
	v    *View
}

func (f *feeding) Get(ctx context.Context, consumer, name string) (*workv1.ManifestWork, error) {
	t := f.v.Begin()
	w, err := f.next.Get(ctx, consumer, name)
	switch {
	case err == nil:
		f.v.Observe(t, consumer, name, w)
	case errors.Is(err, adapter.ErrNotFound):
		f.v.Forget(consumer, name)
	}
	return w, err
}

func (f *feeding) GetBundles(ctx context.Context, keys []adapter.BundleKey) ([]*workv1.ManifestWork, error) {
	t := f.v.Begin()
	ws, err := f.next.GetBundles(ctx, keys)
	if err == nil && len(ws) == len(keys) {
		for i, k := range keys {
			f.v.Observe(t, k.Consumer, k.Name, ws[i])
		}
	}
	return ws, err
}

func (f *feeding) Create(ctx context.Context, consumer string, work *workv1.ManifestWork, read adapter.CreateRead) (*workv1.ManifestWork, error) {
	w, err := f.next.Create(ctx, consumer, work, read)
	if work != nil {
		f.v.Forget(consumer, work.Name)
		if err == nil {
			f.v.unbury(keyOf(consumer, work.Name))
		}
	}
	return w, err
}

func (f *feeding) Update(ctx context.Context, consumer string, observed, desired *workv1.ManifestWork) (*workv1.ManifestWork, error) {
	w, err := f.next.Update(ctx, consumer, observed, desired)
	if observed != nil {
		f.v.Forget(consumer, observed.Name)
	}
	return w, err
}

func (f *feeding) Delete(ctx context.Context, consumer, name string) error {
	err := f.next.Delete(ctx, consumer, name)
	f.v.Forget(consumer, name)
	return err
}

func (f *feeding) Redelete(ctx context.Context, consumer, name string) error {
	err := f.next.Redelete(ctx, consumer, name)
	f.v.Forget(consumer, name)
	return err
}
