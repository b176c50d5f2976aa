// Package adapter is the core of bundle-adapter: the pipeline that one
// event goes through and the bundle decision at its heart. It holds no
// transport code; it declares the boundaries it needs and others implement
// them:
//
//   - Maestro (maestro.go): read, create, update and delete ManifestWork
//     bundles. maestroclient implements it on the real server,
//     maestroclient/memmaestro in memory.
//   - Kube (kube.go): read, create, apply and delete Kubernetes objects
//     (transport.client: kubernetes). kubeclient implements it on
//     client-go, kubeclient/memkube in memory.
//   - API (api.go): the HyperFleet API. hyperfleetapi implements it over
//     HTTP, hyperfleetapi/apistub with canned answers.
//
// Pipeline.Run takes one decoded Event through params, preconditions, the
// bundles (render, fingerprint, decide, write) and post, and returns a
// Result whose Disposition tells the broker what to do with the message
// (ack, retry, dead-letter). Run never blocks on a deletion: a pending
// deletion is an outcome, and the next event continues where this one
// stopped.
//
// The reconcile flow is written once (reconcile.go) over a transport
// interface (transport.go), one file per transport (transport_maestro.go,
// transport_kube.go). The decision is one function, decide (decide.go),
// over what the transport reported at the start of the event; the table next to it maps each
// decision to the Operation, State and Reason reported in Outcome, in
// status conditions and in metrics. docs/architecture.md draws the flow.
package adapter
