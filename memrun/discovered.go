package memrun

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"sync"

	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/memmaestro"
)

// Maestro is the in-memory Maestro of a dry run or a config test, with the
// works of a discovery file that name no consumer (no metadata.namespace, which
// hyperfleet-adapter's dry-run does not require): each is adopted by the
// consumer that first reads its name (Get or GetBundles), as the anchor
// finds it by name. Every other call is the Store's.
type Maestro struct {
	*memmaestro.Store

	mu          sync.Mutex
	unaddressed map[string]json.RawMessage // by name, until adopted
}

var _ adapter.Maestro = (*Maestro)(nil)

// NewMaestro is store with no unaddressed works.
func NewMaestro(store *memmaestro.Store) *Maestro { return &Maestro{Store: store} }

// Get is the Store's Get, after adopting a work of that name.
func (d *Maestro) Get(ctx context.Context, consumer, name string) (*workv1.ManifestWork, error) {
	if err := d.adopt(consumer, name); err != nil {
		return nil, err
	}
	return d.Store.Get(ctx, consumer, name)
}

// GetBundles is the Store's GetBundles, after adopting the works of the
// keys' names.
func (d *Maestro) GetBundles(ctx context.Context, keys []adapter.BundleKey) ([]*workv1.ManifestWork, error) {
	for _, k := range keys {
		if err := d.adopt(k.Consumer, k.Name); err != nil {
			return nil, err
		}
	}
	return d.Store.GetBundles(ctx, keys)
}

// adopt moves the unaddressed work named name, if any, into consumer.
func (d *Maestro) adopt(consumer, name string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	raw, ok := d.unaddressed[name]
	if !ok {
		return nil
	}
	delete(d.unaddressed, name)
	if err := d.Store.Adopt(consumer, raw); err != nil {
		return fmt.Errorf("%w: --discovery: %w", adapter.ErrInvalid, err)
	}
	return nil
}

// discoveryScratchConsumer is the consumer a discovery work without a
// namespace is checked in at load, before any consumer reads it.
const discoveryScratchConsumer = "discovery-check"

// LoadDiscovery reads HyperFleet adapter's discovery file, a JSON object of
// ManifestWorks by name, as a Maestro state holding those works. A work
// without metadata.namespace is checked now and adopted by the consumer
// that first reads it (see Maestro).
func LoadDiscovery(r io.Reader, opts memmaestro.Options) (*Maestro, error) {
	var byName map[string]json.RawMessage
	if err := json.NewDecoder(r).Decode(&byName); err != nil {
		return nil, fmt.Errorf("not a JSON object of ManifestWorks by name: %w", err)
	}
	names := make([]string, 0, len(byName))
	for n := range byName {
		names = append(names, n)
	}
	sort.Strings(names)
	var works []*workv1.ManifestWork
	unaddressed := map[string]json.RawMessage{}
	scratch := memmaestro.New(memmaestro.Options{Clock: opts.Clock, SourceID: opts.SourceID})
	for _, n := range names {
		// Fields a ManifestWork does not have (the anchor's examples carry
		// spec.deleteOption.gracePeriodSeconds) are dropped, as Maestro drops
		// them; the state format itself stays strict.
		w := &workv1.ManifestWork{}
		if err := json.Unmarshal(byName[n], w); err != nil {
			return nil, fmt.Errorf("%q: not a ManifestWork: %w", n, err)
		}
		if w.Namespace != "" {
			works = append(works, w)
			continue
		}
		raw, err := json.Marshal(w)
		if err != nil {
			return nil, err
		}
		if err := scratch.Adopt(discoveryScratchConsumer, raw); err != nil {
			return nil, fmt.Errorf("%q: %w", n, err)
		}
		unaddressed[w.Name] = raw
	}
	state, err := json.Marshal(map[string]any{"works": works})
	if err != nil {
		return nil, err
	}
	store, err := memmaestro.LoadStateWith(bytes.NewReader(state), opts)
	if err != nil {
		return nil, err
	}
	return &Maestro{Store: store, unaddressed: unaddressed}, nil
}
