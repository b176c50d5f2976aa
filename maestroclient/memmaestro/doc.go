// Package memmaestro is an in-memory implementation of adapter.Maestro that
// models the Maestro server as measured on the real server and agent (the
// contract suite in maestroclient/contract runs the same scenarios against
// both). The reconciler's unit tests and the dry-run command use it in place
// of a real server.
//
// What it models:
//
//   - Soft delete. Delete stamps metadata.deletionTimestamp and the work
//     condition Deleting=True (reason WorkDeleting); Get keeps returning the
//     work until the simulated agent confirms the deletion (Confirm,
//     ConfirmAll, or at once with DeleteImmediate). Then Get answers
//     ErrNotFound. A work marked stuck (SetStuck) is never confirmed by
//     ConfirmAll nor by DeleteImmediate: it models a finalizer holding the
//     deletion.
//   - Conflicts. Update of a deleting work fails with ErrUnderDeletion (409);
//     Create of a name that exists, deleting or not, fails with
//     ErrAlreadyExists and changes nothing.
//   - Consumers. With a configured consumer list, Create for any other
//     consumer fails with ErrConsumerNotRegistered and Get answers
//     ErrNotFound, as the REST API does.
//   - Validation. Requests Maestro rejects as malformed fail with ErrInvalid:
//     a name or consumer that is not a DNS-1123 label, a namespace that differs
//     from the consumer, invalid labels or annotations, no manifests, a
//     manifest without kind or metadata.name, or with metadata.generateName.
//   - Server-managed metadata. The uid is the UUIDv5 Maestro derives from
//     (source, manifestworks group-resource, consumer, name), so it is
//     deterministic and stays the same when a work is deleted and created
//     again, as in Maestro. generation starts at 1 and grows by one per
//     Update; resourceVersion is the same number as a string (Maestro uses
//     its resource version for both). Timestamps come from Options.Clock,
//     truncated to whole seconds as Maestro's JSON carries them.
//   - Agent status, optionally (Options.AutoStatus): Applied and Available
//     conditions that observe the current generation, and one
//     status.resourceStatus.manifests entry per manifest.
//
// Test support: every call is recorded (Calls, ResetCalls); FailNext injects
// errors such as adapter.ErrUnavailable; Options.Intercept runs a hook before
// each call; SetStatus replaces a work's status. Everything returned is a deep
// copy, and a Store is safe for concurrent use.
//
// LoadState and SaveState read and write the JSON state file of the dry-run
// command.
package memmaestro
