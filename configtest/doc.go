// Package configtest runs unit tests of task configs: YAML test files that
// name an adapter config and a task config and hold cases, each one event
// or a chain of steps, with what each step must produce (docs/testing-configs.md).
//
// Every step runs through memrun: the pipeline serve runs, against the
// in-memory Maestro, API server and HyperFleet API of dry-run. Nothing of
// the pipeline is implemented twice here; this package reads test files,
// compares what a step produced with what it expects, reports, and
// rewrites expectations (Options.Update).
package configtest
