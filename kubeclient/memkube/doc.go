// Package memkube is an in-memory adapter.Kube: a Kubernetes API server
// reduced to what the kubernetes transport relies on, for tests and
// dry-run. It models
//
//   - finalizers: Delete of an object carrying metadata.finalizers only
//     sets deletionTimestamp; Get keeps returning it until RemoveFinalizers
//     (what the controller owning them does) removes the last one, then
//     answers 404. Nothing in the Store removes finalizers by itself.
//   - 409: Create of a name that exists, being deleted or not, is refused
//     (ErrAlreadyExists); Apply of an object being deleted is refused
//     (ErrUnderDeletion) and Apply of a missing one is ErrNotFound: Apply
//     never creates.
//   - resourceVersion (one counter for the whole store, bumped on every
//     write) and metadata.generation (1 on create, bumped when anything
//     outside metadata and status changes).
//   - List by labels in one namespace or across all.
//   - scope: cluster-scoped kinds (Namespace, CustomResourceDefinition,
//     ClusterRole...) have no namespace; a namespaced kind needs one.
//   - kinds: only the kinds in Options.Kinds plus the built-in ones are
//     served; any other apiVersion/kind is ErrInvalid, as a 404 from API
//     discovery is for a real client (unless Options.AnyKind, for dry-run).
//   - Namespaces: created with spec.finalizers [kubernetes] and phase
//     Active; deleted, they are Terminating, and the namespace controller
//     (modelled unless Options.HoldNamespaces) removes them at once with
//     every object inside them.
//   - propagation: Background, Foreground and Orphan are accepted ("" is
//     Background) and recorded; the garbage collector is modelled as done
//     at once (no ownerReferences are followed); any other is ErrInvalid.
//
// Every call is recorded (Calls, Count) so tests can assert what was read
// and written; FailNext injects errors.
package memkube
