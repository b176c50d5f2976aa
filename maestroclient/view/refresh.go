package view

import (
	"strings"
	"time"

	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// Listing marks when a List of this source's bundles began: its token
// (Begin) and the clock then. See BeginList and Refresh.
type Listing struct {
	t     Token
	read  time.Duration
	start time.Duration // the List's start: no page is read before it
}

// BeginList is called before the first page of a List is requested.
func (v *View) BeginList() Listing {
	v.mu.RLock()
	defer v.mu.RUnlock()
	now := v.since(v.clock())
	return Listing{t: Token(v.seq), read: now, start: now}
}

// Refresh stores one page of a List that began at l: each bundle exactly
// as Observe at l's token would store it (nothing when the bundle was
// forgotten, written, changed by the stream or read again after l, or the
// view dropped since), with l's read time (the List's start, or the page's
// request with PageRequested) as the time it was read, so it is trusted for
// MaxAge from then. keys[i] names works[i]; a nil work
// is skipped (a List never reports absence). Bundles a List does not
// name are left as they are: offset paging under concurrent change may
// skip one, which then ages out after MaxAge.
func (v *View) Refresh(l Listing, keys []adapter.BundleKey, works []*workv1.ManifestWork) {
	for i, k := range keys {
		if i >= len(works) || works[i] == nil {
			continue
		}
		v.store(l.t, keyOf(k.Consumer, strings.Clone(k.Name)), works[i], l.read)
	}
}

// PageRequested is l for a page of the List whose request began at
// requested (on the view's clock): its bundles are as Maestro held them at
// some moment after, so they are trusted from requested, however long the
// page then waited to be handed on (pages read ahead). Never later than
// now, never earlier than the List's start. The token stays the List's (a
// change after the List began still wins). With it, Lists that begin
// Every apart refresh each bundle about Every apart, however long a List
// takes.
func (v *View) PageRequested(l Listing, requested time.Time) Listing {
	l.read = min(max(v.since(requested), l.start), v.since(v.clock()))
	return l
}

// Superseded reports whether the view was dropped (a (re)subscription)
// after l began: then Refresh stores nothing of l, and only a new List
// fills the view.
func (v *View) Superseded(l Listing) bool {
	v.mu.RLock()
	defer v.mu.RUnlock()
	return uint64(l.t) < v.dropped
}
