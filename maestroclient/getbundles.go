package maestroclient

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

var (
	_ adapter.Maestro = (*Client)(nil)
	_ adapter.Maestro = (*Pool)(nil)
)

// GetBundles reads several bundles in one REST request, Maestro's list
// searched by bundle id (GET /api/maestro/v1/resource-bundles?search=id in
// (...)). Maestro's list includes bundles being deleted, as Get does, so
// each entry is what Get returns for its key, or nil where Get would answer
// ErrNotFound. Retried like Get; an error applies to every key.
func (c *Client) GetBundles(ctx context.Context, keys []adapter.BundleKey) ([]*workv1.ManifestWork, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	ids := make([]string, len(keys))
	for i, k := range keys {
		if err := checkKey(k.Consumer, k.Name); err != nil {
			return nil, wrapCall("get bundles", k.Consumer, k.Name, err)
		}
		ids[i] = c.bundleID(k.Consumer, k.Name)
	}
	var works []*workv1.ManifestWork
	err := c.call(ctx, "get bundles", keys[0].Consumer, keys[0].Name+",...", func(ctx context.Context) error {
		var err error
		works, err = c.rest.bundles(ctx, ids)
		return err
	})
	return works, err
}

// GetBundles reads several bundles in one request; see Client.GetBundles.
func (p *Pool) GetBundles(ctx context.Context, keys []adapter.BundleKey) ([]*workv1.ManifestWork, error) {
	return p.clients[0].GetBundles(ctx, keys)
}

// bundles reads the bundles with the given ids in one list request and
// returns them in the order of ids, nil for an id Maestro does not hold.
func (r *restReader) bundles(ctx context.Context, ids []string) ([]*workv1.ManifestWork, error) {
	quoted := make([]string, len(ids))
	for i, id := range ids {
		quoted[i] = "'" + id + "'" // bundle ids are UUIDs: nothing to escape
	}
	query := url.Values{"search": {"id in (" + strings.Join(quoted, ",") + ")"}, "size": {strconv.Itoa(len(ids))}}
	body, err := r.get(ctx, "/api/maestro/v1/resource-bundles?"+query.Encode(), maxBundleResponse*int64(len(ids)))
	if err != nil {
		return nil, err
	}
	var list struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(body, &list); err != nil {
		return nil, fmt.Errorf("decode resource bundle list: %w", err)
	}
	at := make(map[string][]int, len(ids)) // an id asked for twice gets the bundle twice
	for i, id := range ids {
		at[id] = append(at[id], i)
	}
	works := make([]*workv1.ManifestWork, len(ids))
	for _, item := range list.Items {
		var head struct {
			ID string `json:"id"`
		}
		if err := json.Unmarshal(item, &head); err != nil {
			return nil, fmt.Errorf("decode resource bundle list item: %w", err)
		}
		idx, ok := at[head.ID]
		if !ok || works[idx[0]] != nil {
			return nil, fmt.Errorf("%w: resource bundle list: unexpected or repeated bundle %q", adapter.ErrInvalid, head.ID)
		}
		for _, i := range idx {
			if works[i], err = decodeBundle(item); err != nil {
				return nil, fmt.Errorf("decode resource bundle %s: %w", head.ID, err)
			}
		}
	}
	return works, nil
}
