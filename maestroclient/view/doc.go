// Package view keeps an in-memory view of this source's bundles, so an
// event whose bundles are unchanged needs no Maestro request at all.
//
// The view is fed four ways:
//
//   - Maestro's own answers: every Get and GetBundles that goes through the
//     decorator returned by Maestro stores the bundle as read (a 404 forgets
//     it). Only a read makes an entry: what a view hit hands to the adapter
//     is exactly what a read returned, so CEL sees the same object.
//   - Lists of this source's bundles (refresh.go, refresher.go): a List is a
//     read of every bundle it names, as of some moment after it began. Its
//     pages are stored as an Observe at the List's token would store them
//     (BeginList, Refresh), each entry read when its page was requested
//     (PageRequested). The Refresher lists right after every (re)subscription,
//     which is what refills the view it drops, and then every 3/4 MaxAge
//     start to start, so entries do not age out while Maestro answers. A List proves nothing about absence:
//     paging under concurrent change may skip a bundle, so bundles it does
//     not name are left to age out, never forgotten.
//   - The source's status stream (sdk-go's subscription; see Status): the
//     agent's status replaces an entry's status; a stream event that shows
//     another spec (generation, fingerprint or write id), a deletion (Deleting or
//     Deleted condition) or a bundle the view cannot name forgets the entry;
//     one for a bundle without an entry leaves a marker as a forget does,
//     so that a read or List of it in flight, which Maestro may have
//     answered before the agent's report, stores nothing (every input
//     against a read in flight: TestNoReadInFlightOvertakesANewerInput).
//   - The adapter's own writes: every Create, Update and Delete forgets the
//     entry, since a write's answer is not what a read returns (no status, no
//     server timestamps), and nothing orders it with another replica's write
//     of the same bundle: the answer's version may already be overtaken
//     when it arrives. The next List or read refills it; after a Create,
//     so does the agent's first status that echoes the create's write id
//     (create.go), which is what a read returns.
//
// What each guarantees: a read or a List, what Maestro held at some moment
// after it began (hence the token: anything the view learned after that
// moment wins); the stream, only what an agent reported, and nothing while
// it is not subscribed (hence the drop on every (re)subscription); a
// write's answer, only that Maestro accepted the write (hence a forget).
//
// Lookup trusts an entry only while it is fresh (read within MaxAge; older
// entries are swept as reads go on), the
// bundle is present and not being deleted, and the stream has not been
// (re)subscribed since it was read: a (re)subscription (Subscribed) drops
// every entry, and before the first one Lookup misses everything. A read
// that began before its bundle was forgotten or the view dropped never
// stores what it read (it may be older than what made the view forget);
// a forget is about one bundle, so reads of the others still store.
//
// Besides entries the view keeps tombstones (tombstone.go): the stream's
// Deleted confirmations, each the deleted bundle's fingerprint annotation
// and when it arrived, bounded as the adapter's memory of recreations (one
// hour, 10,000), dropped when the bundle exists again and on every
// (re)subscription. With them a replica that did not delete a bundle can
// report the create after Maestro's 404 as the end of a recreation
// (adapter.Tombstones); they change no decision.
//
// The view never answers "absent": a 404, a deletion, an update, every
// write decision is taken on Maestro's own answer. A stale entry can only
// make the adapter report "unchanged" for at most MaxAge while another
// writer changed the bundle behind the stream's back; it never causes a
// write.
package view
