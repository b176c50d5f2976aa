package maestroclient_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// TestConcurrentConsumers drives one client for 8 consumers at once (run it
// with -race). Every bundle must land at, and only at, its own consumer:
// the shared work client's namespace must never leak between calls.
func TestConcurrentConsumers(t *testing.T) {
	s := requireServer(t)
	c := newClient(t, s, nil)
	const consumers, bundles = 8, 5
	names := make([]string, consumers)
	for i := range names {
		names[i] = register(t, s, fmt.Sprintf("conc%d", i))
	}
	var wg sync.WaitGroup
	errs := make(chan error, consumers*bundles)
	for _, consumer := range names {
		wg.Go(func() {
			for j := range bundles {
				if err := roundTrip(t, c, consumer, fmt.Sprintf("b%d", j)); err != nil {
					errs <- fmt.Errorf("%s: %w", consumer, err)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	// Every consumer holds exactly its own bundles, all deleting now.
	for _, consumer := range names {
		for j := range bundles {
			w, err := c.Get(t.Context(), consumer, fmt.Sprintf("b%d", j))
			if err != nil || w.Namespace != consumer || w.DeletionTimestamp == nil {
				t.Errorf("%s/b%d: %v %+v", consumer, j, err, w)
			}
		}
	}
	if _, err := c.Get(t.Context(), names[0], "b"+fmt.Sprint(bundles)); !errors.Is(err, adapter.ErrNotFound) {
		t.Errorf("unexpected bundle: %v", err)
	}
}

// roundTrip creates, reads, updates and deletes one bundle of consumer,
// checking that each step sees the consumer's own bundle.
func roundTrip(t *testing.T, c adapter.Maestro, consumer, name string) error {
	ctx := t.Context()
	desired := bundle(name, consumer)
	if _, err := c.Create(ctx, consumer, desired, adapter.Unread); err != nil {
		return err
	}
	got, err := c.Get(ctx, consumer, name)
	if err != nil {
		return err
	}
	if got.Namespace != consumer || string(got.Spec.Workload.Manifests[0].Raw) == "" {
		return fmt.Errorf("read %s/%s", got.Namespace, got.Name)
	}
	desired.Labels["round"] = "2"
	if _, err := c.Update(ctx, consumer, got, desired); err != nil {
		return err
	}
	return c.Delete(ctx, consumer, name)
}
