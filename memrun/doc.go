// Package memrun runs reconcile events through the real pipeline
// (adapter.Pipeline) against in-memory fakes: Maestro (memmaestro), the
// Kubernetes API server (memkube) and the HyperFleet API (apistub). It is
// what `bundle-adapter dry-run` and `bundle-adapter test` share: the files
// that say what exists (the Maestro state, the kube state, HyperFleet
// adapter's discovery file) and what the API answers are read here, once,
// for both; the pipeline is the one serve runs.
//
// Errors do not name the file or flag they came from: callers add it.
package memrun
