package memmaestro

import (
	"context"
	"strings"

	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// VerbGetBundles records a GetBundles call: one request for several
// bundles. Its Call names the first key's consumer and every name joined
// by commas.
const VerbGetBundles = "get_bundles"

// GetBundles returns, in the order of keys, a deep copy of each work as Get
// returns it (deletionTimestamp set while a deletion is pending), nil for
// one the Store does not hold, like Maestro's list. A fault injected for
// VerbGetBundles fails the whole call.
func (b *Store) GetBundles(ctx context.Context, keys []adapter.BundleKey) ([]*workv1.ManifestWork, error) {
	consumer, names := "", make([]string, len(keys))
	for i, k := range keys {
		names[i] = k.Name
	}
	if len(keys) > 0 {
		consumer = keys[0].Consumer
	}
	if err := b.begin(ctx, VerbGetBundles, consumer, strings.Join(names, ",")); err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]*workv1.ManifestWork, len(keys))
	for i, k := range keys {
		if w, ok := b.works[key{k.Consumer, k.Name}]; ok {
			out[i] = w.DeepCopy()
		}
	}
	return out, nil
}
