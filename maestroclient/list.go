package maestroclient

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// Page sizes of List: Maestro answers at most 65,500 items a page; a page
// of MaxListPageSize bundles of a few KB each is a few tens of MB of JSON.
// The default, 1,000, is a page of about 2.5 MB of the bench's bundles,
// answered in about 0.3 s: one List per 3/4 max_age then costs bundles /
// 1,000 requests, 0.00044 per unchanged event at 2 bundles a cluster,
// Sentinel's 10 s and a 2m max age (500 measured 0.00107 over a 300 s
// phase at 1,000 clusters: four Lists of 8 pages).
const (
	MinListPageSize     = 10
	MaxListPageSize     = 5000
	DefaultListPageSize = 1000
)

// maxListBundles bounds what one List pages through: a first page that
// counts more, or paging past the pages the first page's count allows
// plus listSlackPages (bundles created while listing), is taken as
// never-ending and List fails.
const (
	maxListBundles = 1_000_000
	listSlackPages = 1
)

// ListPage receives each page of List, in page order, one call per
// request (an empty page too): works[i] is the bundle keys[i] names, as
// Get would return it (a bundle being deleted too, with its
// deletionTimestamp). requested is when the page's read began (before it
// waited for a read slot): the bundles are as Maestro held them at some
// moment after it, however long the page then waited to be handed on
// (pages are read ahead, see listAhead). An error stops List, which
// returns it.
type ListPage func(keys []adapter.BundleKey, works []*workv1.ManifestWork, requested time.Time) error

// ListStats says what one List read: Pages handed to the ListPage (one
// request each; pages read ahead of the one that ended the List are not
// counted), Bundles handed to the ListPage, Skipped items not handed (a bundle whose id is not the one this
// source gives its consumer and name: Get of that name would not read it).
type ListStats struct {
	Pages, Bundles, Skipped int
}

// List reads every bundle of this source (Options.SourceID), of all
// consumers, through Maestro's REST list (GET
// /api/maestro/v1/resource-bundles?search=source='...'&orderBy=id&page=N&size=M),
// size bundles a page (clamped to MinListPageSize..MaxListPageSize), and
// hands each page to page as it arrives. Each page is one request through
// the read slots, with its body bounded like GetBundles' and retried like
// Get on ErrUnavailable. Paging ends at the first page shorter than size,
// or one that reaches the count Maestro gave with it (so no empty last
// page is asked for; a bundle created meanwhile may go unlisted, as offset
// paging may skip one anyway).
//
// Offset paging under concurrent change may skip a bundle or list one
// twice; a full page whose every bundle was on a page seen before (a
// server that ignores the page, or cycles through pages A, B, A, B), a
// first page counting more than maxListBundles, or paging that does not
// end within the pages the first page's count allows plus listSlackPages
// fails with ErrInvalid. The error names the page; pages handed before it
// stand. The worst a hostile server can make a List cost is then the
// first count's pages of new bundles, at most maxListBundles bundles
// (docs/reliability.md has it measured).
func (c *Client) List(ctx context.Context, size int, page ListPage) (ListStats, error) {
	return c.list(ctx, size, page, listAhead)
}

// listAhead is how many pages of a List are read at once once the first
// page has given the count: the pages it counts are read up to listAhead
// at a time, each through the read slots (so within MaxConcurrentReads,
// shared with every other read), and handed on in order. Pages past the
// first count (bundles created while listing) are read one at a time, so
// a hostile server costs no more requests than before: at most the first
// count's pages, and at most listAhead-1 read ahead of the page that ends
// the List.
const listAhead = 4

// list is List reading up to ahead pages at once (1: one at a time).
func (c *Client) list(ctx context.Context, size int, page ListPage, ahead int) (ListStats, error) {
	size = min(max(size, MinListPageSize), MaxListPageSize)
	if strings.ContainsAny(c.opts.SourceID, `'"\`) {
		return ListStats{}, wrapCall("list", "*", "*", fmt.Errorf("%w: source id %q cannot be searched", adapter.ErrInvalid, c.opts.SourceID))
	}
	ctx, cancel := context.WithCancel(ctx) // ends the pages read ahead when List returns
	defer cancel()
	l := lister{c: c, size: size, page: page, maxPages: maxListBundles / size, ahead: max(ahead, 1)}
	for n := 1; ; n++ {
		if n > l.maxPages {
			return l.stats, wrapCall("list", "*", "page "+strconv.Itoa(n),
				fmt.Errorf("%w: paging did not end after %d pages of %d", adapter.ErrInvalid, l.maxPages, size))
		}
		got, err := l.read(ctx, n)
		if err != nil {
			return l.stats, err
		}
		more, err := l.next(n, got.answer, got.requested)
		if err != nil {
			return l.stats, err
		}
		if !more {
			return l.stats, nil
		}
	}
}

// List reads every bundle of this source; see Client.List.
func (p *Pool) List(ctx context.Context, size int, page ListPage) (ListStats, error) {
	return p.clients[0].List(ctx, size, page)
}

// lister is the state of one List.
type lister struct {
	c        *Client
	size     int
	page     ListPage
	maxPages int
	stats    ListStats
	seen     map[string]struct{} // the ids of every page so far
	// ahead is how many pages are read at once; counted is the pages the
	// first page's count covers (the only ones read ahead); pending holds
	// the pages read ahead, by number, until their turn.
	ahead, counted int
	pending        map[int]chan pageRead
}

// pageRead is one page read: its answer or why it failed, and when its
// read began.
type pageRead struct {
	answer    *listAnswer
	requested time.Time
	err       error
}

// read returns page n: read now when it is the first or past the first
// count, else from the pages read ahead, reading more ahead first (up to
// ahead pages from n, never past the first count).
func (l *lister) read(ctx context.Context, n int) (pageRead, error) {
	if n == 1 || n > l.counted || l.ahead == 1 {
		r := l.fetch(ctx, n)
		return r, r.err
	}
	if l.pending == nil {
		l.pending = make(map[int]chan pageRead, l.ahead)
	}
	for m := n; m < n+l.ahead && m <= l.counted; m++ {
		if _, ok := l.pending[m]; !ok {
			ch := make(chan pageRead, 1)
			l.pending[m] = ch
			go func() { ch <- l.fetch(ctx, m) }()
		}
	}
	r := <-l.pending[n]
	delete(l.pending, n)
	return r, r.err
}

// fetch reads page n, retried like Get.
func (l *lister) fetch(ctx context.Context, n int) pageRead {
	r := pageRead{requested: time.Now()}
	r.err = l.c.call(ctx, "list", "*", "page "+strconv.Itoa(n), func(ctx context.Context) error {
		var err error
		r.answer, err = l.c.rest.listPage(ctx, l.c.opts.SourceID, n, l.size)
		return err
	})
	return r
}

// next checks page n, read from requested on, and hands it on; false when
// it was the last.
func (l *lister) next(n int, got *listAnswer, requested time.Time) (bool, error) {
	l.stats.Pages++
	if n == 1 {
		if err := l.firstCount(got.Total); err != nil {
			return false, err
		}
	}
	keys := make([]adapter.BundleKey, 0, len(got.Items))
	works := make([]*workv1.ManifestWork, 0, len(got.Items))
	repeated := 0
	for _, item := range got.Items {
		if _, ok := l.seen[item.id]; ok {
			repeated++
		}
		l.seen[item.id] = struct{}{}
		if item.id != l.c.bundleID(item.consumer, item.work.Name) {
			l.stats.Skipped++
			continue
		}
		keys = append(keys, adapter.BundleKey{Consumer: item.consumer, Name: item.work.Name})
		works = append(works, item.work)
	}
	if len(got.Items) >= l.size && repeated == len(got.Items) {
		return false, wrapCall("list", "*", "page "+strconv.Itoa(n),
			fmt.Errorf("%w: resource bundle list: page %d holds only bundles of pages seen before", adapter.ErrInvalid, n))
	}
	if err := l.page(keys, works, requested); err != nil { // an empty page too: one call a request
		return false, err
	}
	l.stats.Bundles += len(keys)
	return len(got.Items) >= l.size && n*l.size < got.Total, nil
}

// firstCount bounds the paging by the count of the first page: its pages
// plus listSlackPages, and refuses a count over maxListBundles.
func (l *lister) firstCount(total int) error {
	if total > maxListBundles {
		return wrapCall("list", "*", "page 1", fmt.Errorf("%w: resource bundle list counts %d bundles, more than the %d a List reads",
			adapter.ErrInvalid, total, maxListBundles))
	}
	l.counted = (max(total, 0) + l.size - 1) / l.size
	l.maxPages = min(l.maxPages, l.counted+listSlackPages)
	l.seen = make(map[string]struct{}, min(max(total, 0), 100_000))
	return nil
}

// listAnswer is one decoded page of the resource bundle list.
type listAnswer struct {
	Total int
	Items []listItem
}

type listItem struct {
	id, consumer string
	work         *workv1.ManifestWork
}

// maxListPage bounds one List page's body whatever its size: a page of
// bundles as large as maxBundleResponse each would be gigabytes, so a page
// past this fails the List (the view's entries then age out and events
// read their bundles one by one; nothing is lost); a smaller
// list_page_size makes such pages fit.
const maxListPage = 128 << 20

// listPageLimit is the body bound of a List page of size bundles.
func listPageLimit(size int) int64 { return min(maxBundleResponse*int64(size), maxListPage) }

// listPage reads page n (from 1) of size bundles of source, ordered by id,
// and decodes each item straight into a ManifestWork (decodeBundle).
func (r *restReader) listPage(ctx context.Context, source string, n, size int) (*listAnswer, error) {
	query := url.Values{"search": {"source = '" + source + "'"}, "orderBy": {"id"},
		"page": {strconv.Itoa(n)}, "size": {strconv.Itoa(size)}}
	body, err := r.get(ctx, "/api/maestro/v1/resource-bundles?"+query.Encode(), listPageLimit(size))
	if err != nil {
		return nil, err
	}
	return decodeListPage(body, size)
}

// decodeListPage decodes one page of the resource bundle list, of at most
// size items, each into the ManifestWork decodeBundle makes of it. The
// page is parsed once, items included (BenchmarkListPageFill: parsing each
// item again on its own took most of a List's decoding).
func decodeListPage(body []byte, size int) (*listAnswer, error) {
	var list struct {
		Total int            `json:"total"`
		Items []wireListItem `json:"items"`
	}
	if err := json.Unmarshal(body, &list); err != nil {
		return nil, listPageError(body, err)
	}
	if len(list.Items) > size {
		return nil, fmt.Errorf("%w: resource bundle list: %d items on a page of %d", adapter.ErrInvalid, len(list.Items), size)
	}
	got := &listAnswer{Total: list.Total, Items: make([]listItem, 0, len(list.Items))}
	for i := range list.Items {
		item := &list.Items[i]
		work, err := item.work()
		if err != nil {
			return nil, fmt.Errorf("decode resource bundle %s: %w", item.ID, err)
		}
		got.Items = append(got.Items, listItem{id: item.ID, consumer: item.ConsumerName, work: work})
	}
	return got, nil
}

// listPageError is why a page did not decode: the first item that does not
// decode on its own, named by its id, or err when the page is not a list
// of items at all (only on the error path: each item is parsed again).
func listPageError(body []byte, err error) error {
	var list struct {
		Items []json.RawMessage `json:"items"`
	}
	if json.Unmarshal(body, &list) != nil {
		return fmt.Errorf("decode resource bundle list: %w", err)
	}
	for i, raw := range list.Items {
		var item wireListItem
		if itemErr := json.Unmarshal(raw, &item); itemErr != nil {
			var head struct {
				ID string `json:"id"`
			}
			if json.Unmarshal(raw, &head) != nil || head.ID == "" {
				return fmt.Errorf("decode resource bundle list item %d: %w", i+1, itemErr)
			}
			return fmt.Errorf("decode resource bundle %s: %w", head.ID, itemErr)
		}
	}
	return fmt.Errorf("decode resource bundle list: %w", err)
}

// wireListItem is one item of a list page: the bundle's id and consumer,
// and the members a ManifestWork is made of.
type wireListItem struct {
	ID           string `json:"id"`
	ConsumerName string `json:"consumer_name"`
	wireBundle
}
