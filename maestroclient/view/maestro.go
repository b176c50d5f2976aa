package view

import (
	"context"
	"errors"
	"strings"

	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/bundles"
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

// Create sends work with a write id of its own (create.go): the view
// forgets the bundle before the create is sent, and the agent's first
// status that echoes the write id makes its entry. A failed create forgets
// the bundle again, write id and all. A successful one leaves what the
// stream may already have made: every read that began before the create
// was sent stores nothing, and one that began after it read what Maestro
// held then.
func (f *feeding) Create(ctx context.Context, consumer string, work *workv1.ManifestWork, read adapter.CreateRead) (*workv1.ManifestWork, error) {
	if work == nil {
		return f.next.Create(ctx, consumer, work, read)
	}
	k := keyOf(consumer, strings.Clone(work.Name))
	sent := bundles.WithAnnotation(work, bundles.WriteIDAnnotation, f.v.creating(k))
	w, err := f.next.Create(ctx, consumer, sent, read)
	if err != nil {
		f.v.Forget(consumer, work.Name)
		return w, err
	}
	f.v.unbury(k)
	return w, nil
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
