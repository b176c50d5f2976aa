// Package adapter is the core of bundle-adapter: the pipeline that one
// event goes through and the bundle decision at its heart. It holds no
// transport code; it declares the clients it calls and others implement
// them.
//
// A resource is delivered by one of two transports (transport.client).
// Each is a transport of the one reconcile flow (transport.go), not a flow
// of its own, and calls its client:
//
//   - Maestro (maestro.go; transport_maestro.go): ManifestWork bundles
//     through Maestro. maestroclient implements it on the real server,
//     maestroclient/memmaestro in memory.
//   - Kube (kube.go; transport_kube.go, transport.client: kubernetes):
//     Kubernetes objects applied straight to a cluster. kubeclient
//     implements it on client-go, kubeclient/memkube in memory.
//
// One Interceptor (intercept.go) observes the calls of both clients.
// Beside the transports, the pipeline calls
//
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
// over what the transport reported at the start of the event; the table
// next to it maps each decision to the Operation, State and Reason
// reported in Outcome, in status conditions and in metrics.
// docs/architecture.md draws the flow.
package adapter
