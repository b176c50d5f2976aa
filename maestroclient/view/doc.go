// Package view keeps an in-memory view of this source's bundles, so an
// event whose bundles are unchanged needs no Maestro request at all.
//
// The view is fed three ways:
//
//   - Maestro's own answers: every Get and GetBundles that goes through the
//     decorator returned by Maestro stores the bundle as read (a 404 forgets
//     it). Only a read makes an entry: what a view hit hands to the adapter
//     is exactly what a read returned, so CEL sees the same object.
//   - The source's status stream (sdk-go's subscription; see Status): the
//     agent's status replaces an entry's status; a stream event that shows
//     another spec (generation or fingerprint), a deletion (Deleting or
//     Deleted condition) or a bundle the view cannot name forgets the entry.
//   - The adapter's own writes: every Create, Update and Delete forgets the
//     entry, since a write's answer is not what a read returns (no status, no
//     server timestamps). The next event reads and refills it.
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
