package view

import (
	"context"
	"log/slog"
	"sync"
	"time"

	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// ListFunc lists every bundle of this source, handing each page (one call
// a request, an empty page too) to page in order (keys[i] names works[i],
// read from requested on, on the view's clock); maestroclient's Pool.List
// with a page size. An error of page stops it and is returned.
type ListFunc func(ctx context.Context, page func(keys []adapter.BundleKey, works []*workv1.ManifestWork, requested time.Time) error) error

// RefreshResult is what one List of the refresher did, for metrics.
type RefreshResult struct {
	Pages, Bundles int
	Took           time.Duration
	Err            error
}

// RefresherOptions configures a Refresher.
type RefresherOptions struct {
	List ListFunc
	// Every is the time from the start of one successful List to the
	// start of the next; zero means three quarters of the view's MaxAge.
	// Each page's bundles are trusted from that page's request
	// (View.PageRequested), so a bundle is refreshed about Every apart whatever
	// a List takes, and an entry Maestro still holds never ages out while
	// Lists succeed and their pages' timing varies by less than a quarter
	// of MaxAge. One List per Every is the whole steady cost of the view:
	// bundles / page size requests.
	Every time.Duration
	// MinBackoff and MaxBackoff space the retries of a failed List
	// (defaults 1s and 30s, MaxBackoff at most Every).
	MinBackoff, MaxBackoff time.Duration
	// CreateGrace is how long after a create of this process the agent's
	// status may take before the create counts as unlisted
	// (View.UnlistedCreates): once at least as many are unlisted as the last
	// List had pages, a List is due at once (one request a page instead of
	// one read a bundle in the round after the creates), at most one such
	// List per createListSpacing of the last List's duration, and never
	// sooner than CreateGrace after the last List began. Zero means
	// DefaultCreateGrace; negative, never (only Every and subscriptions
	// list).
	CreateGrace time.Duration
	// Listed, when set, is called after every List.
	Listed func(RefreshResult)
	Logger *slog.Logger
}

// DefaultCreateGrace is RefresherOptions.CreateGrace when it is zero: an
// agent that keeps up reports a create within 40 ms idle and 0.5 to 1.5 s
// under load (docs/reliability.md), so a create unreported after 2 s is
// one the stream will not bring soon.
const DefaultCreateGrace = 2 * time.Second

// createListSpacing bounds the Lists unlisted creates cause: one begins
// no sooner than this many times the last List's duration after it began,
// so they take at most a fifth of Maestro's time for this source's Lists
// (at 20,000 bundles a List takes about 12 s: one a minute at most).
const createListSpacing = 5

// createCheckEvery is how often Run counts unlisted creates.
const createCheckEvery = 500 * time.Millisecond

// Refresher fills and refreshes a View with Lists of this source's
// bundles: one right after every (re)subscription of the status stream
// (which drops every entry), then one every Every; a failed List is
// retried with backoff. It is the view's maestroclient.StatusSink: it
// passes the stream on to the view and learns of subscriptions. Create it
// with NewRefresher and run it with Run.
type Refresher struct {
	v    *View
	o    RefresherOptions
	kick chan struct{} // a (re)subscription: list now
	// synced: the view was synced when the refresher was made (Options.Synced),
	// so Run lists at once instead of waiting for a subscription's kick.
	synced bool

	fillOnce sync.Once
	filled   chan struct{} // closed by the first List after the first subscription

	// The last List: when it began, how long it took, its pages (Run's
	// goroutine only).
	lastBegan time.Time
	lastTook  time.Duration
	lastPages int
}

// NewRefresher returns a refresher of v.
func NewRefresher(v *View, o RefresherOptions) *Refresher {
	if o.Every <= 0 {
		o.Every = v.maxAge * 3 / 4
	}
	if o.MinBackoff <= 0 {
		o.MinBackoff = time.Second
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = 30 * time.Second
	}
	o.MaxBackoff = max(min(o.MaxBackoff, o.Every), o.MinBackoff)
	if o.CreateGrace == 0 {
		o.CreateGrace = DefaultCreateGrace
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return &Refresher{v: v, o: o, kick: make(chan struct{}, 1), filled: make(chan struct{}), synced: v.Synced()}
}

// Subscribed drops the view (View.Subscribed) and has Run list now.
func (r *Refresher) Subscribed() {
	r.v.Subscribed()
	select {
	case r.kick <- struct{}{}:
	default: // a List is already due
	}
}

// Status passes one stream event to the view (View.Status).
func (r *Refresher) Status(work *workv1.ManifestWork) { r.v.Status(work) }

// Filled is closed once a List that began after the first subscription
// (or, for a view made Synced, the first List) has completed: from then on
// the view holds every bundle Maestro listed.
func (r *Refresher) Filled() <-chan struct{} { return r.filled }

// Run lists until ctx ends: after every (re)subscription (the first List
// waits for one unless the view was Synced at NewRefresher), then every
// Every; a failed or superseded List (a resubscription while it ran) is
// retried, a failed one after a backoff that doubles up to MaxBackoff.
func (r *Refresher) Run(ctx context.Context) {
	if !r.synced {
		select {
		case <-r.kick:
		case <-ctx.Done():
			return
		}
	}
	backoff := r.o.MinBackoff
	for {
		began := time.Now()
		err := r.refresh(ctx)
		wait := max(0, r.o.Every-time.Since(began)) // start to start
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			r.o.Logger.Warn("bundle view: list of this source's bundles failed; retrying", "backoff", backoff, "error", err)
			wait, backoff = backoff, min(2*backoff, r.o.MaxBackoff)
		default:
			backoff = r.o.MinBackoff
		}
		if !r.wait(ctx, wait, err == nil) { // no early List during a failed one's backoff
			return
		}
	}
}

// wait waits d for the next List, or less: a kick (a subscription), or,
// with creates, unlisted creates making a List due (createsDue). It
// returns false when ctx ended.
func (r *Refresher) wait(ctx context.Context, d time.Duration, creates bool) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	var check <-chan time.Time
	if creates && r.o.CreateGrace >= 0 {
		tick := time.NewTicker(createCheckEvery)
		defer tick.Stop()
		check = tick.C
	}
	for {
		select {
		case <-r.kick:
			return true
		case <-t.C:
			return true
		case <-check:
			if r.createsDue() {
				return true
			}
		case <-ctx.Done():
			return false
		}
	}
}

// createsDue reports whether unlisted creates make a List due: the view is
// filled, the last List began at least CreateGrace and createListSpacing
// of its duration ago, and at least as many creates as it had pages (at
// least one) are unlisted past CreateGrace, so the List costs no more
// requests than reading each of them would.
func (r *Refresher) createsDue() bool {
	select {
	case <-r.filled:
	default:
		return false
	}
	since := time.Since(r.lastBegan)
	if since < r.o.CreateGrace || since < createListSpacing*r.lastTook {
		return false
	}
	n := r.v.UnlistedCreates(r.o.CreateGrace)
	if n >= max(1, r.lastPages) {
		r.o.Logger.Debug("bundle view: listing for creates no status reported", "creates", n, "grace", r.o.CreateGrace)
		return true
	}
	return false
}

// refresh is one List into the view. A List that a resubscription
// superseded while it ran is not an error: the kick it left lists again.
func (r *Refresher) refresh(ctx context.Context) error {
	start := time.Now()
	l := r.v.BeginList()
	var res RefreshResult
	res.Err = r.o.List(ctx, func(keys []adapter.BundleKey, works []*workv1.ManifestWork, requested time.Time) error {
		res.Pages++
		res.Bundles += len(keys)
		r.v.Refresh(r.v.PageRequested(l, requested), keys, works)
		return nil
	})
	res.Took = time.Since(start)
	r.lastBegan, r.lastTook, r.lastPages = start, res.Took, res.Pages
	if r.o.Listed != nil {
		r.o.Listed(res)
	}
	if res.Err != nil {
		return res.Err
	}
	if r.v.Superseded(l) {
		r.o.Logger.Info("bundle view: list superseded by a resubscription; listing again", "pages", res.Pages, "bundles", res.Bundles)
		return nil
	}
	r.o.Logger.Debug("bundle view: listed this source's bundles", "pages", res.Pages, "bundles", res.Bundles, "took", res.Took)
	r.fillOnce.Do(func() {
		r.o.Logger.Info("bundle view: filled by the first list", "bundles", res.Bundles, "took", res.Took)
		close(r.filled)
	})
	return nil
}

// Every is the time between two successful Lists.
func (r *Refresher) Every() time.Duration { return r.o.Every }
