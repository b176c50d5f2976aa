// Package shadow runs the pipeline beside a live adapter without writing:
// serve --shadow.
//
// The three boundaries of the pipeline (adapter.Maestro, adapter.Kube,
// adapter.API) are wrapped in read-only decorators (Maestro, Kube, API):
// a read goes to the real client, a write (create, update, delete,
// redelete, apply; an API call other than GET and HEAD) is recorded on the
// event's Log and never reaches the real client, whatever code path makes
// it. The answer to a write is what a successful one would answer (the
// desired object, 200 with "{}"), so the pipeline goes on as it would.
//
// Process runs one event through the pipeline with such boundaries and
// reports, per resource and for the status, whether what this adapter would
// have done agrees with what is live (Compare).
package shadow
