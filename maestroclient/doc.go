// Package maestroclient implements adapter.Maestro on a Maestro server:
// bundles (ManifestWorks) are created, patched and deleted through Maestro's
// gRPC source API (maestro's grpcsource work client, sdk-go CloudEvents) and
// read through its REST API.
//
// # Contract
//
// Bundles are addressed by consumer and name; Maestro stores them under a
// deterministic id of (Options.SourceID, consumer, name), so every replica
// of an adapter must share one SourceID. Every error a caller acts on wraps
// one of the adapter sentinels, tested with errors.Is, and names the
// operation, consumer and bundle:
//
//   - Get reads over REST and returns the bundle as Maestro holds it:
//     metadata.generation is Maestro's resource version, status carries the
//     agent's work conditions and, per manifest, its conditions and feedback
//     values (status.resourceStatus.manifests[].statusFeedback). A bundle
//     whose deletion is pending keeps coming back, with
//     metadata.deletionTimestamp, until the agent confirms; then 404, which
//     is ErrNotFound.
//   - Create returns ErrAlreadyExists when the bundle exists, deletion
//     pending included (nothing is written then), and
//     ErrConsumerNotRegistered when Maestro does not know the consumer.
//   - Update sends a JSON merge patch from the observed bundle to the
//     desired one (labels, annotations, spec); an observed bundle without a
//     generation (not read from Maestro) makes it read the bundle first and
//     patch from that. A bundle being deleted gives ErrUnderDeletion, a gone
//     or never created one ErrNotFound. If the bundle changed since
//     it was observed, Maestro refuses the stale patch: the error wraps
//     ErrUnavailable (read again, then retry) and is not retried inside.
//   - Delete returns once Maestro accepted the request. A gone bundle gives
//     ErrNotFound; one already being deleted is left untouched (nil).
//   - ErrUnavailable marks transport failures, timeouts and server errors.
//     Those, and only those, are retried inside each call
//     (Options.Retry) with a doubling backoff; Options.Timeout bounds the
//     whole call, retries included, within the caller's context. A caller's
//     cancellation is returned as context.Canceled, without a sentinel.
//   - ErrInvalid marks a request refused as malformed, by the work client's
//     validation or by the server.
//
// # Concurrency
//
// A Client is safe for concurrent use. sdk-go's work client keeps the
// consumer (namespace) of the next call in shared state, so writes (create,
// update, delete) go through it one at a time; reads do not touch it and run
// in parallel. sdk-go limits one client to about 50 published events per
// second. A Pool (NewPool) holds Options.Clients Clients (default
// DefaultClients) and sends every call for a bundle through the same one,
// chosen by consumer and name: writes of different bundles run in parallel
// and are not capped by one limiter, writes of one bundle keep their order.
//
// # Cost
//
// Get is one REST request, its answer decoded once into the ManifestWork
// (not through the generated openapi model and grpcsource.ToManifestWork,
// which decoded and re-encoded every part). Requests do not ask for gzip:
// compressing a few KB cost Maestro about a fifth of its CPU per read.
// Idle REST connections are kept (up to 64) so concurrent reads do not dial.
// The source client publishes but does not subscribe to the source's
// status events: the adapter reads status with Get, and a subscription made
// Maestro encode, and every client decode, each agent status update.
// Create, update and delete also read the bundle once inside sdk-go's work
// client (existence check, patch base) before they publish.
//
// # Connection
//
// New does not wait for the server: the gRPC connection is made lazily and
// re-made after a failure with sdk-go's backoff (about 5 s at first, growing
// to a minute). Calls fail with ErrUnavailable meanwhile. TLS is on unless
// TLSOptions.Insecure is set; mTLS when a client certificate is given.
//
// The simulated agent for tests is in package agentsim.
package maestroclient
